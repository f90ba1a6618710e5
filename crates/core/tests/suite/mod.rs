mod backends;
mod probe;
mod stop;
mod subagent;
mod tools;
