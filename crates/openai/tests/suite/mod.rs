//! The hearth-openai integration suites, one module per concern (STYLE §8).
mod client;
mod faults;
mod stop;
mod tools;
