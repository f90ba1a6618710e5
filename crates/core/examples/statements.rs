//! Prints, for each message of a JSON array read from stdin, the sentences
//! memory would ask the model about (`workers::statements`), as a JSON array
//! of arrays: what `bench/memory/fact_examples.py` labels to make the
//! examples memory's vote compares new sentences with.
//!
//! `echo '["I am a nurse. Fix this."]' | cargo run -q -p hearth-core --example statements`

use std::io::Read;

use hearth_core::workers::{facts::own_words, statements::statements};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let messages: Vec<String> = serde_json::from_str(&input)?;
    let picked: Vec<Vec<String>> = messages.iter().map(|m| statements(&own_words(m))).collect();
    println!("{}", serde_json::to_string(&picked)?);
    Ok(())
}
