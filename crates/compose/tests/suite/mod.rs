//! The hearth-compose integration suites, one module per concern.
mod first_run;
mod knowledge;
mod mcp_listings;
