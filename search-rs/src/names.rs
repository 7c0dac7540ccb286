//! The names in a state string that poke-engine does not know. The engine reads an unknown
//! species, move, item or ability as nothing, silently; a name it knows comes back when the
//! state it read is written out again, so the words that do not come back are the unknown ones.

/// The words of `text` (split at the serialised form's separators) that carry a letter,
/// upper-cased as the engine writes names.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| "/=,;:".contains(c))
        .filter(|w| w.chars().any(|c| c.is_ascii_alphabetic()))
        .map(|w| w.to_uppercase())
        .collect()
}

/// The words of `given` (a state as written for the engine) missing from `read_back` (the
/// state the engine read, written out again), each as often as it is missing; empty where the
/// engine knew every name.
pub fn unknown_names(given: &str, read_back: &str) -> Vec<String> {
    let mut back: std::collections::HashMap<String, i32> = std::collections::HashMap::new();
    for w in words(read_back) {
        *back.entry(w).or_insert(0) += 1;
    }
    let mut unknown = Vec::new();
    for w in words(given) {
        match back.get_mut(&w) {
            Some(n) if *n > 0 => *n -= 1,
            _ => unknown.push(w),
        }
    }
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;
    use poke_engine::state::State;

    #[test]
    fn a_state_the_engine_reads_whole_has_no_unknown_name() {
        let written = example_state().serialize();
        assert!(unknown_names(&written, &State::deserialize(&written).serialize()).is_empty());
    }

    #[test]
    fn a_name_the_engine_does_not_know_is_named() {
        let broken = example_state().serialize().replacen("EARTHQUAKE", "EARTHQUAKEX", 1);
        let read = State::deserialize(&broken).serialize();
        assert_eq!(unknown_names(&broken, &read), vec!["EARTHQUAKEX".to_string()]);
    }
}
