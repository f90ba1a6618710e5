mod client;
mod faults;
mod stop;
mod tools;
mod wire_rules;
