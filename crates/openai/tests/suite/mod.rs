//! The hearth-openai integration suites, one module per concern (docs/style.md §8).
mod client;
mod faults;
mod pictures;
mod stop;
mod tools;
