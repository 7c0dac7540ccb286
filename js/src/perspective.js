// Picks, from one simulator `update` chunk, the lines a given perspective sees: after
// `|split|pN`, the first line is pN's private copy and the second the public one, which is
// also what a spectator sees.
export function linesFor(lines, perspective) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('|split|')) {
      const owner = line.slice(7);
      out.push(owner === perspective ? lines[i + 1] : lines[i + 2]);
      i += 2;
    } else {
      out.push(line);
    }
  }
  return out;
}
