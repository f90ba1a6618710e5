//! The hearth-store integration suites, one module per concern (docs/style.md §8).
mod attachments;
mod branches;
mod crash;
mod export;
mod hostile_pdf;
mod hosts;
mod import;
mod memories;
mod migrations;
mod private;
mod profiles;
mod projects;
mod search;
mod sessions;
mod sheets;
mod summaries;
