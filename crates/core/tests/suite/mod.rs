mod probe;
mod stop;
mod tools;
