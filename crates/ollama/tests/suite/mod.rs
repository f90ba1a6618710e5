//! The hearth-ollama integration suites, one module per concern (docs/style.md §8).
mod client;
mod context;
mod corpus;
mod faults;
mod stop;
mod tools;
mod wire_rules;
