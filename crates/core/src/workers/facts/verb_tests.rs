//! The screen's verb rules (`happened.rs`) and its "a thing of theirs is
//! not the user" rule, each on facts it refuses and facts it keeps.

use super::tests::{c, refused_as_passing};
use super::*;

/// `fact` put through the screen, said by the user as `sentence`.
fn screened(fact: &str, sentence: &str) -> (Vec<Fact>, Vec<Rejected>) {
    screen(
        vec![c(fact, "identity", sentence, 0.9)],
        &own_words(sentence),
    )
}

/// Asserts that each fact, said by the user as its own sentence, is
/// refused for what `reason` says, and each of `lasting` is kept.
fn refused_and_kept(refused: &[(&str, &str)], lasting: &[(&str, &str)], reason: &str) {
    for (fact, sentence) in refused {
        let (kept, rejected) = screened(fact, sentence);
        assert!(kept.is_empty(), "kept: {fact}");
        assert_eq!(rejected[0].reason, reason, "{fact}");
    }
    for (fact, sentence) in lasting {
        let (kept, rejected) = screened(fact, sentence);
        assert_eq!(kept.len(), 1, "{fact}: {rejected:?}");
    }
}

#[test]
fn an_event_or_the_tasks_material_is_not_memory() {
    let happened = "something that happened, or the task's material, not a lasting fact";
    refused_and_kept(
        &[
            // Told as the context of a question: it happened.
            (
                "The user dropped their phone in the sink.",
                "I dropped my phone in the sink.",
            ),
            (
                "The user was hoping for a quick fix.",
                "I was hoping for a quick fix.",
            ),
            (
                "The user has just finished a long shift.",
                "I've just finished a long shift.",
            ),
            (
                "The user has noticed that the build is slow.",
                "I've noticed that the build is slow.",
            ),
            (
                "The user’s old bike was finally sold.",
                "My old bike was finally sold.",
            ),
            (
                "The user's first draft was too long.",
                "My first draft was too long.",
            ),
            (
                "The user is in a meeting with the client.",
                "I'm in a meeting with the client.",
            ),
            (
                "The user is not going to finish it.",
                "I'm not going to finish it.",
            ),
            (
                "The user will be in Rome next spring.",
                "I will be in Rome next spring.",
            ),
            ("The user might switch to Vim.", "I might switch to Vim."),
            (
                "The user has a job interview on Friday.",
                "I have a job interview on Friday.",
            ),
            // The task's material.
            (
                "The user has a CSV of sales per store.",
                "I have a CSV of sales per store.",
            ),
            ("The user's old kettle died.", "My old kettle died."),
            (
                "The user has read that tea does not always keep.",
                "I've read that tea does not always keep.",
            ),
            (
                "The user has to give a talk on compilers.",
                "I have to give a talk on compilers.",
            ),
            // The user is no subject of it.
            (
                "The user in their old team they shipped three apps.",
                "In my old team I shipped three apps.",
            ),
        ],
        &[
            (
                "The user moved to Lyon in 2019.",
                "I moved to Lyon in 2019.",
            ),
            ("The user grew up near the sea.", "I grew up near the sea."),
            ("The user was born in Quito.", "I was born in Quito."),
            (
                "The user was a nurse for twenty years.",
                "I was a nurse for twenty years.",
            ),
            (
                "The user has lived in Osaka since 2012.",
                "I've lived in Osaka since 2012.",
            ),
            ("The user has never owned a car.", "I've never owned a car."),
            (
                "The user has kept bees for a decade.",
                "I've kept bees for a decade.",
            ),
            ("The user has coeliac disease.", "I have coeliac disease."),
            ("The user has to avoid gluten.", "I have to avoid gluten."),
            (
                "The user's daughter was born in May.",
                "My daughter was born in May.",
            ),
            (
                "The user's mother is a retired teacher.",
                "My mother is a retired teacher.",
            ),
            ("The user is in a band.", "I'm in a band."),
            ("The user is in the army.", "I'm in the army."),
            ("The user is on a MacBook Air.", "I'm on a MacBook Air."),
            (
                "The user got married last year.",
                "I got married last year.",
            ),
        ],
        happened,
    );
    // A passing word of the hour ("this week") or a state of knowing.
    refused_as_passing(
        "The user is working from a café this week.",
        &own_words("I'm working from a café this week."),
    );
    refused_as_passing(
        "The user understands that the lens size matters.",
        &own_words("I understand that the lens size matters."),
    );
}

#[test]
fn a_thing_of_the_users_is_not_the_user() {
    // A thing of theirs or of the task is not what the user is; what the
    // user says they are stays theirs, whatever else the sentence holds,
    // and so does a fact that names their thing beside them.
    refused_and_kept(
        &[
            ("The user is a Rails app.", "My Rails app is slow."),
            (
                "The user is a React component.",
                "I'm getting a TypeError in a React component.",
            ),
        ],
        &[
            ("The user's Rails app is slow.", "My Rails app is slow."),
            (
                "The user is a nurse.",
                "I'm a nurse in a hospital in Leeds.",
            ),
            ("The user is a nurse.", "I work as a nurse in a clinic."),
            (
                "The user is doing a part-time MBA on top of their job.",
                "doing a part time mba on top of my job",
            ),
        ],
        "the user spoke of someone or something of theirs, not of themselves",
    );
}

#[test]
fn what_the_user_has_got_is_theirs_an_ailment_of_the_day_is_not() {
    refused_and_kept(
        &[
            ("The user has a cold.", "I have a cold."),
            ("The user has got the flu.", "I've got the flu."),
            (
                "The user has a headache and needs a quiet playlist.",
                "I have a headache and need a quiet playlist.",
            ),
        ],
        &[
            ("The user has got two kids.", "I've got two kids."),
            ("The user has got a greenhouse.", "I've got a greenhouse."),
            ("The user has migraines.", "I have migraines."),
            ("The user has got married.", "I've got married."),
        ],
        "a request or a passing state, not a lasting fact",
    );
}

#[test]
fn a_denial_of_what_the_user_is_is_not_kept() {
    refused_and_kept(
        &[
            (
                "The user is not a teacher themselves.",
                "I'm not a teacher myself.",
            ),
            (
                "The user is not a statistician, so keep the methods simple.",
                "I'm not a statistician, so keep the methods simple.",
            ),
        ],
        // What they do not do or like is theirs: a diet, a preference.
        &[
            ("The user does not eat pork.", "I don't eat pork."),
            ("The user does not like emojis.", "I don't like emojis."),
        ],
        "says what the user is not",
    );
}

#[test]
fn a_consequence_copied_along_is_cut_from_the_fact() {
    let sentence = "My daughter Ottilie is allergic to eggs, so mayonnaise is out and she's fed up with cheese sandwiches.";
    let (kept, rejected) = screened(
        "The user's daughter Ottilie is allergic to eggs, so mayonnaise is out and she's fed up with cheese sandwiches.",
        sentence,
    );
    assert_eq!(kept.len(), 1, "{rejected:?}");
    assert_eq!(
        kept[0].text,
        "The user's daughter Ottilie is allergic to eggs."
    );
    // A "no" in the consequence does not deny the fact before it; one in
    // the fact's own clause still does.
    let sentence = "I run a small bakery with my sister, so I have no patience for long recipes.";
    let (kept, rejected) = screened(
        "The user runs a small bakery with their sister, so they have no patience for long recipes.",
        sentence,
    );
    assert_eq!(kept.len(), 1, "{rejected:?}");
    let sentence = "I don't run a bakery, so I buy my bread.";
    let (kept, _) = screened("The user runs a bakery, so they buy their bread.", sentence);
    assert!(kept.is_empty(), "{kept:?}");
    // Too short before the comma: the fact stays whole (and is screened so).
    assert_eq!(
        without_consequence("The user, so to speak"),
        "The user, so to speak"
    );
}

#[test]
fn a_request_about_the_conversations_material_is_not_a_preference() {
    refused_and_kept(
        &[
            (
                "The user's preference: convert this recipe to metric for them.",
                "Convert this recipe to metric for me.",
            ),
            (
                "Punch up this dialogue for the user's play.",
                "Punch up this dialogue for my play.",
            ),
        ],
        &[
            (
                "The user's preference: always give temperatures in Celsius.",
                "Always give temperatures in Celsius for me.",
            ),
            (
                "The user only writes Zig these days.",
                "I only write Zig these days.",
            ),
            (
                "The user is a hydrologist, and this is for a flood review.",
                "I'm a hydrologist, and this is for a flood review.",
            ),
        ],
        "a request about the conversation's material, not a lasting fact",
    );
}

#[test]
fn what_the_user_says_of_a_thing_of_theirs_is_not_said_of_them() {
    refused_and_kept(
        &[(
            "The user is still terrible.",
            "We moved to Porto, which is why our Portuguese is still terrible.",
        )],
        &[
            (
                "The user is still terrible at Portuguese.",
                "I'm still terrible at Portuguese.",
            ),
            (
                "The user is colour-blind.",
                "My eyes are fine but I'm colour-blind.",
            ),
        ],
        "the user spoke of someone or something of theirs, not of themselves",
    );
}

#[test]
fn a_sentence_with_the_user_put_before_it_is_not_a_fact() {
    refused_and_kept(
        &[(
            "The user I'd like something around 27 inches with a USB-C connection.",
            "I'd like something around 27 inches with a USB-C connection.",
        )],
        &[],
        "a sentence of the user's, not a fact about them",
    );
}
