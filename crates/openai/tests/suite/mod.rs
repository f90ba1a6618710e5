mod client;
mod faults;
mod stop;
mod tools;
