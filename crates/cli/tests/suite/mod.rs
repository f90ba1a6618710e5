pub(crate) mod basics;
mod crash;
mod sessions;
