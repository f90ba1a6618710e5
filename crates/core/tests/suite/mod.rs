//! The hearth-core integration suites, one module per concern (docs/style.md §8).
mod approvals;
mod backends;
mod budget;
mod corpus;
mod guard;
mod lockups;
mod overflow;
mod planning;
mod probe;
mod reasoning;
mod runaway;
mod sanitizer_fixture;
mod steering;
mod stop;
mod stored;
mod subagent;
mod tools;
