mod agent;
mod apps;
mod conformance;
mod failures;
mod servers;
mod speaker;
