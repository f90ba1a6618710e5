//! The fifth round's rules (`lasting.rs`, the denial "is no", a forwarded
//! email's sender), each on facts a real 0.5B model wrote from the fourth
//! held-out set and refused now, and on facts of the same shape that stay.

use super::tests::c;
use super::*;

/// `fact` screened against the user's message `said`.
fn screened(fact: &str, said: &str) -> (Vec<Fact>, Vec<Rejected>) {
    screen(vec![c(fact, "identity", said, 0.9)], &own_words(said))
}

fn refused(fact: &str, said: &str, reason: &str) {
    let (kept, rejected) = screened(fact, said);
    assert!(kept.is_empty(), "kept: {fact}");
    assert_eq!(rejected[0].reason, reason, "{fact}");
}

fn kept(fact: &str, said: &str) {
    let (kept, rejected) = screened(fact, said);
    assert_eq!(kept.len(), 1, "{fact}: {rejected:?}");
}

#[test]
fn what_the_user_was_or_is_not_is_not_what_they_are() {
    refused(
        "The user used to live in Dubai but moved away years ago.",
        "I used to live in Dubai but moved away years ago.",
        "what the user was, not what they are",
    );
    refused(
        "The user is no chef and has never worked in a kitchen",
        "I'm no chef and I've never worked in a kitchen.",
        "says what the user is not",
    );
    // Accustomed is how they are; "no" inside the fact is not its denial.
    kept(
        "The user is used to cold winters.",
        "I'm used to cold winters.",
    );
    kept(
        "The user lives in Oslo and has no car.",
        "I live in Oslo and have no car.",
    );
}

#[test]
fn someone_else_of_theirs_as_the_subject_is_someone_elses_fact() {
    let why = "about someone else, not the user";
    refused(
        "The user's boss lives in Oslo and cc's the whole team on every email.",
        "My boss lives in Oslo and cc's the whole team on every email.",
        why,
    );
    refused(
        "The user's neighbour is a drummer and practises until midnight.",
        "My neighbour is a drummer and practises until midnight.",
        why,
    );
    refused(
        "The user's friends are all vegan.",
        "My friends are all vegan.",
        why,
    );
    // The user's family and pets are theirs.
    kept(
        "The user's partner Luis is vegetarian.",
        "My partner Luis is vegetarian.",
    );
}

#[test]
fn a_task_handed_to_them_or_weighed_up_passes() {
    let why = "a request or a passing state, not a lasting fact";
    refused(
        "The user has been asked to give a five-minute talk on photosynthesis.",
        "I've been asked to give a five-minute talk on photosynthesis.",
        why,
    );
    refused(
        "The user's been looking at a MacBook Pro with an M-series chip.",
        "I've been looking at a MacBook Pro with an M-series chip.",
        why,
    );
    refused(
        "The user is considering a move to Lisbon.",
        "I'm considering a move to Lisbon.",
        why,
    );
    kept(
        "The user is learning Portuguese.",
        "I'm learning Portuguese.",
    );
}

#[test]
fn the_tasks_own_things_hold_for_this_conversation_only() {
    let why = "something that happened, or the task's material, not a lasting fact";
    refused(
        "The user's budget is flexible up to roughly 2,000 euros.",
        "My budget is flexible up to roughly 2,000 euros.",
        why,
    );
    refused(
        "The user's current one is six years old.",
        "My current one is six years old.",
        why,
    );
    refused(
        "The user's first attempt double counts anyone who was transferred.",
        "My first attempt double counts anyone who was transferred.",
        why,
    );
    kept(
        "The user's dog Biscuit is a greyhound.",
        "My dog Biscuit is a greyhound.",
    );
    kept(
        "The user's first language is Tamil.",
        "My first language is Tamil.",
    );
}

#[test]
fn a_forwarded_email_is_its_senders_words() {
    let said = "Can you help me reply to this politely? I don't want to commit to anything.\n\n\
                ---------- Forwarded message ---------\n\
                From: Priya Raman <priya.raman@example.com>\n\
                Subject: Site visit\n\n\
                Hi, I'm a structural engineer based in Chennai and I'm allergic to cats, \
                so could we meet at your office rather than at home?";
    refused(
        "The user is a structural engineer based in Chennai.",
        said,
        "the user never said it",
    );
    assert!(!own_words(said).contains("Chennai"));
    assert!(own_words(said).contains("reply to this politely"));
    // Outlook's and Apple Mail's shapes, and a bare header.
    for opener in [
        "-----Original Message-----",
        "Begin forwarded message:",
        "From: Priya <priya@example.com>",
    ] {
        let said = format!("Please summarise this.\n{opener}\nI'm a pilot in Lima.");
        assert!(!own_words(&said).contains("pilot"), "{opener}");
    }
    // "From:" in the user's own sentence opens nothing.
    let own = "From: the start, I'm a nurse in Leeds and I work nights.";
    assert!(own_words(own).contains("nurse"));
}
