// eslint for js/: the recommended rules over the bundle's sources (src/), what tests and
// benchmarks load (checks/) and the tools (tools/), as ES modules run by V8 (mini-racer) and Node.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['src/**/*.js', 'checks/**/*.js', 'tools/**/*.mjs', 'eslint.config.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {...globals.es2021, ...globals.node},
    },
    rules: {
      // an argument named for what it is, unused by one implementation of a shared shape
      'no-unused-vars': ['error', {args: 'none', caughtErrors: 'none'}],
    },
  },
];
