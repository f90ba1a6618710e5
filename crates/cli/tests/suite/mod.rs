pub(crate) mod basics;
mod crash;
mod memory;
mod openai;
mod profiles;
mod search_export;
mod sessions;
mod traces;
mod workers;
