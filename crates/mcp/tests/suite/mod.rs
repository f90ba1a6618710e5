mod agent;
mod failures;
mod servers;
