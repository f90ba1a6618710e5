mod agent;
mod conformance;
mod failures;
mod servers;
mod speaker;
