//! Whether a sentence of the user's states a standing rule or only shapes the task at hand.
//!
//! A preference must carry a lasting marker ("always", "from now on", "in this repo", "we
//! use", "in all …", a prohibition) and no task-scope marker ("this time", "for now", "just",
//! "here", or "it" / "this" as the object of the request). A sentence that joins a task to a
//! rule ("fix the importer, and keep all Python formatted with black") keeps only the rule;
//! one that joins two rules yields both. A request ("please add a flag") is not a rule,
//! however politely it is put.

use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    crate::core::patterns::regex(pattern)
}

/// Markers of a rule meant to last beyond the session.
static LASTING: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"(?i)(?:^|[。！？:;"'“‘(—–]\s*)(?:(?:please|pls|plz|also|and|but|so|oh|then|yes|yeah|ok|okay)[\s,]+){0,2}(?:always|never)\b"#,
        r"|\b(?:please|pls|plz|we|i|you|agents?|everyone|one)\s+(?:should\s+|must\s+|will\s+|can\s+|do\s+)?(?:always|never)\b|\b(?:should|must|to)\s+(?:always|never)\b",
        // "we run Pint before every commit", "we log with structlog": the team's habit.
        r"|\bbefore (?:every|each|any) (?:commit|push|merge|release|deploy|pr|pull request)\b",
        r"|\bwe\s+(?:log|lint|format|build|package|bundle|type-?check)\s+(?:\S+\s+)?(?:with|using|via|through)\b",
        // "And no default exports anywhere, named exports only."
        r"|^(?:(?:and|also|but|so)[\s,]+)?no\s+(?:[^.;!?]|\.\w){1,60}\b(?:anywhere|ever|at all)\b",
        r"|;\s*(?:(?:and|also|but)[\s,]+)?no\s+(?:[^.;!?]|\.\w){1,60}\banywhere\b",
        // "anything under packages/ui is named exports only": all of a place, done one way.
        r"|\b(?:anything|everything|every file|all code)\s+under\s+`?[\w./-]+/?`?\s+(?:is|are|uses?|goes|must|should|gets|has)\b[^.;!?]{0,60}\b(?:only|never|always|no)\b",
        // "errors are compared with errors.Is / errors.As, never by matching strings": the
        // way it is done, and the way it never is.
        r"|,\s*never\s+(?:by|via)\s+\w+ing\b",
        // "Nix files in chrysoprase are formatted with `nix fmt`", "Tests sit next to the
        // source as `*.test.ts`": how a kind of thing of the project is done.
        r"|^(?:(?:and|also|but|so)[\s,]+)?(?:all\s+|our\s+)?(?:[\w*.`-]+\s+)?(?:files|tests|specs|modules|migrations|components|errors|logs|imports|handlers|scripts|templates|queries|options)\s+(?:in\s+[\w./-]+\s+)?(?:are|get)\s+(?:formatted|linted|written|named|kept|placed|stored|compared|declared|typed)\s+(?:with|through|via|as|under)\b",
        r"|^(?:(?:and|also|but|so)[\s,]+)?(?:all\s+|our\s+)?(?:[\w*.`-]+\s+)?(?:tests|specs)\s+(?:in\s+[\w./-]+\s+)?(?:sit|live|go)\s+next to\b",
        // "In modules/, every option gets a `type`": every one of a kind, in a place.
        r"|^in\s+`?[\w.-]*/[\w./-]*`?,?\s+(?:every|each|any|no)\s+[\w-]+\s+(?:gets?|has|have|must|should|needs?|uses?|goes|go)\b",
        // "For new code in labradorite: `with` chains rather than nested case."
        r"|\bfor (?:all |any )?new code(?:\s+in\s+[\w.-]+)?\s*[:,]",
        r"|\b(?:from now on|going forward|(?:in|for) (?:the )?future|by default|as a rule|every time|each time|whenever)\b",
        // "crystal tool format before committing pls, always." (A courtesy marks it a rule:
        // "the flaky test fails on CI, always" says how often.)
        r"|\b(?:pls|plz|please)[,;]\s*(?:always|never)[.!]*\s*$",
        // "when you touch .tex files: one sentence per line"
        r"|\bwhen(?:ever)?\s+(?:you|we|anyone)\s+(?:touch|edit|change|write|add|create|modify|work on|update)\s+(?:an?\s+|any\s+)?(?:\S+\s+)?(?:files?|\*?\.\w+)\b",
        // "when you touch values.yaml, bump …", "When you add a migration, also run …": what
        // goes with every change of that kind. (Not "when you're done, commit".)
        r"|\bwhen(?:ever)?\s+(?:you|we|anyone)\s+(?:touch|edit|change|add|create|modify|update|bump)\s+(?:an?\s+|any\s+|a new\s+)?(?:migrations?|schemas?|[\w/.-]+\.(?:ya?ml|json|toml|sql|proto|graphql|xml|gradle|kts|lock|cfg|ini))\b[^.;!?]{0,40},\s*(?:also\s+|always\s+)?(?:run|bump|update|regenerate|commit|add|rebuild)\b",
        r"|\bkeep (?:it|them|things) (?:that|this) way\b|\b(?:stays?|remains?) (?:that|this) way(?:[.,;:!)]|\s*$)",
        r"|\b(?:is|are)\s+(?:banned|not allowed|disallowed)\b",
        r"|\bfor (?:future|later|next|all) (?:sessions?|time|runs?|work|reference)\b|\bnext time\b|\bheads[- ]up\b",
        r"|\b(?:is|are|goes|go|stays|stay|lives|live|must be|should be)\s+(?:always|never)\b",
        // "on every call" tells how often something happens, unless a rule opens the sentence.
        // ("Look for anything about the repo" only says what to look for.)
        r"|\beverywhere (?:in|across) (?:this|our|the) \w+|\b(?:in|for|across|to|with) (?:all|every|any)\b|\b(?:in|across|to|with) (?:every|any)(?:thing|where|one)\b|\b(?:nowhere|anywhere|everywhere) else\b",
        r"|^(?:(?:please|pls|plz|also|and)\s+)?(?:run|use|check|lint|format|test|build|sign|tag)\b[^.;!?]*\bon (?:all|every|any|each)\b",
        // "Same drill as always: vet plus staticcheck before you commit."
        r"|\b(?:as always|as usual|as ever|same drill|the usual|like always|you know the drill)\b|\bsame as (?:everything|everywhere|always|usual)\b",
        // "usual rule: `cargo clippy` has to be clean before you hand anything back".
        r"|\b(?:usual|standing|house|team)\s+rules?\s*:|\bbefore (?:you\s+)?(?:hand(?:ing)?|giv(?:e|ing)|pass(?:ing)?)\s+(?:anything|any (?:work|change)|things)\s+(?:back|over)\b",
        // "keyword arguments for anything new": every one to come.
        r"|\b(?:for|to|on)\s+(?:anything|everything)\s+new\b",
        // "new error types go in `src/error.rs`": where every new one goes.
        r"|(?:^|:\s*)(?:all\s+)?new\s+[\w-]+(?:\s+[\w-]+)?\s+(?:go|goes|belong|belongs|live|lives|should go|must go)\s+(?:in|into|under)\b",
        // "Do it the way we do multi-step writes everywhere: …"
        r"|\bthe (?:same )?way we (?:do|write|handle|structure|name|test|build)\s+[^.;:!?]{1,40}?\beverywhere\b",
        // "And please, for the hundredth time: …": said again, and meant to stay said.
        r"|\bfor the (?:\w+th|umpteenth|nth|last) time\b",
        // "Generally speaking, any ALTER …": how things are done, not what to do now.
        r"|^(?:generally(?: speaking)?|as a general rule)\b",
        // "PDBs in this chart use maxUnavailable: 1, full stop."
        r"|[,—–-]\s*(?:full stop|period|no exceptions|end of story)[.!]*\s*$",
        // "And no new runtime gems", "keep -Werror on, never silence a warning …".
        r"|^(?:(?:and|also|but|so)[\s,]+)?no (?:(?:new|more|extra|other|third-party|external)\s+)+(?:runtime\s+|dev\s+|test\s+)?(?:gems|dependencies|deps|packages|crates|libraries|modules|plugins)\s*(?:[,;:.!]|$)",
        r"|^(?:(?:and|also|but|so)[\s,]+)?(?:keep|use|run|leave)\b[^.;!?]*,\s*never\s+\w",
        r"|\b(?:must not|mustn'?t|shall not|should not|shouldn'?t)\s+(?:import|depend on|pull in|vendor)\b",
        r"|\b(?:a |the |one |our )?(?:house )?rules? (?:for|in|of) (?:this|our|the|these) (?:repo|repository|project|codebase|code base|docs|monorepo|team|code)\b|\bhouse rules?\b",
        // "in this repo" lays down a convention; "shows up in the repo" only says where.
        r"|\b(?:in|for|across) (?:this|our) (?:repo|repository|project|codebase|monorepo|workspace|code base|plugin|library|crate|firmware|extension)\b|\bacross the (?:repo|repository|project|codebase|monorepo|code base)\b",
        r"|^(?:(?:please|pls|plz|also|and|but|so|then)\s+)?(?:keep|format|write|run|use|lint|name|put|make|check|prefix|sign|tag|document|type|test|give|end|start|lock|pin)\s+(?:all|every|any|each)\b",
        r"|\bin (?:this|our) (?:repo|repository|project|codebase|monorepo|workspace|team|code base)\b|\bin here\b",
        r"|^(?:all|every|each|any|no)\s+(?:\w+\s+){0,2}(?:change|changes|commit|commits|file|files|function|functions|test|tests|package|packages|module|modules|migration|migrations|endpoint|endpoints|pr|prs|component|components|query|queries|script|scripts|symbol|symbols|class|classes|method|methods|type|types|struct|structs|handler|handlers|controller|controllers|job|jobs|model|models|route|routes|service|services)\b",
        // "Scripts here are strict POSIX sh", "Our tests assert with AssertJ only".
        r"|\b(?:tests|specs|migrations|files|modules|components|commits|logs|packages|scripts|sources|templates|queries|handlers|services|jobs|models)\s+here\s+(?:are|go|use|live|must|should|need|run|get)\b",
        r"|\bour (?:tests|specs|scripts|migrations|handlers|services|modules|queries|commits|jobs|models|templates)\s+(?:assert|use|go|run|live|log|read|write|get|must|should|never|always)\b",
        r"|\b(?:we|i)\s+(?:always|never|usually|prefer|use|avoid|only use|stick to|don'?t use|do not use|'d rather|would rather|like to|don'?t want|do not want|hate|standardi[sz]ed on|switched to|moved to|write|store|keep|name|format|pin|deploy|release|ship)\b",
        // "we don't pip install anything into the env": what the team never does.
        r"|\bwe\s+(?:don'?t|do not)\s+(?:(?:pip|npm|gem|cargo|brew|apt|go)\s+)?(?:install|vendor|mock|hand-roll)\b",
        r"|\bwe'?re\s+(?:on|using)\b",
        // "This firmware never allocates": what the project's code does, always or never.
        r"|^(?:this|our)\s+(?:[\w-]+\s+)?(?:project|repo|repository|codebase|code base|code|firmware|crate|library|plugin|package|monorepo)\s+(?:always|never)\s+\w+",
        // "we dropped vitest last month, don't bring it back".
        r"|\bwe\s+(?:no longer use|stopped using|moved off|moved away from)\b|\b(?:don'?t|do not|never) (?:bring|add|put) (?:\S+\s+){1,2}back\b",
        // "This project is pdm only", "our repo uses pnpm": what the project is, said of it.
        r"|^(?:(?:also|and|but|so|btw)[\s,]+)?(?:this|our) (?:project|repo|repository|codebase|code base|monorepo|crate|package|app) (?:is\s+\S+[- ]only|only uses|doesn'?t use|does not use|never uses|always uses|uses\s+\S+(?:\s+\S+)?,?\s+not)\b",
        r"|\bour (?:convention|style|rule|policy|standard|setup|house style)\b|\bour [\w-]+ (?:convention|rule|standard)s?\s*:|\bconvention\b|\bhouse style\b|\bprefer(?:s|red)?\b",
        r"|,\s*ever\b|\bever again\b",
        // "CMAKE_C_EXTENSIONS stays OFF, that's deliberate": a decision, not an accident.
        r"|\b(?:that'?s|that is|it'?s|it is|this is)\s+(?:deliberate|intentional|on purpose|by design)\b",
        // "Oh, and a standing one: …", "whatever you do, don't …", "that's the project standard".
        r"|\b(?:a|one|another)\s+standing\s+(?:one|rule|order|instruction|preference|request|thing)\b|\bwhatever (?:you|we) do\b",
        r"|\b(?:a|one|the|our)\s+rules?\s+that\s+(?:stays?|holds?|lasts?|sticks?)\b",
        // "use kotest assertions, like the rest of the module does": its convention.
        r"|\blike the rest of (?:the|this|our) (?:module|repo|codebase|project|code|tests|test suite|app|package|crate|library)\b",
        // "so any new file uses them please": every one to come.
        r"|\b(?:any|every|each|all)\s+new\s+(?:[\w-]+\s+)?(?:file|files|function|functions|method|methods|api|apis|struct|structs|route|routes|table|tables|module|modules|class|classes|endpoint|endpoints|component|components|migration|migrations|package|packages|crate|crates|type|types|handler|handlers|script|scripts|service|services|code)\s+(?:uses?|gets?|has|have|goes|go|needs?)\b",
        r"|\bwe'?re an? [\w-]+ shop\b",
        // "Style here is the tidyverse one with the native pipe": the project's style, named.
        r"|^(?:(?:and|also|but|so|btw)[\s,]+)?(?:the\s+|our\s+)?(?:code\s+|house\s+)?(?:style|conventions?)\s+(?:here|in here|in this (?:repo|project|codebase))\s+(?:is|are)\s+(?:the|a|an|our)\b",
        // "in capri we do constructor injection only, is team rule", "that's non negotiable".
        r"|\bwe\s+do\s+[\w-]+(?:\s+[\w-]+){0,3}\s+only\b|\bteam (?:rule|convention)\b|\bnon[- ]?negotiable\b",
        // "we dont do default exports anywhere in lanai": what the team never does, anywhere.
        r"|\bwe\s+(?:don'?t|dont|do not|never)\s+\w+(?:\s+[\w-]+){0,4}?\s+(?:anywhere|ever)\b",
        // "declare(strict_types=1) at the top of every php file": every one of a kind of file.
        r"|\b(?:of|on|at the top of|at the end of) every\s+(?:[\w.-]+\s+)?(?:file|module|class|function|test|handler|script|package|page|component|migration)s?\b",
        // "…, never block with .Result or .Wait()": a prohibition said after the way to take.
        r"|[,;:—–]\s*(?:and\s+)?never\s+(?:block|use|call|commit|push|import|add|put|write|log|run|mutate|touch|catch|swallow|return|throw|hardcode|store|inject|mock|vendor|edit)\b",
        // "as I said last time, amounts are integer cents everywhere": said again, to last.
        r"|\bas i (?:said|told you|mentioned) last time,?\s+(?:[^\s.;!?]+\s+){3,}",
        // "One thing, and I mean this for good: …", "Small thing but I care about it: …".
        r"|\bi mean (?:this|it|that) for good\b|\bi care about (?:it|this|that)\s*:|\b(?:a|my) pet peeve\b",
        r"|\b(?:that'?s|that is|it'?s|it is|this is)\s+(?:the|our)\s+(?:(?:project|team|repo|company)(?:'s)?\s+|house\s+)?(?:standard|convention|rule|policy|norm)(?:\s*[,.;:!)—–-]|\s*$|\s+(?:here|in|for|across|of|we)\b)",
        // "… always go through perform_job/2, never call perform/1": the way set against one
        // never to take. ("It fails on CI, always." says how often.)
        r"|\b(?:always|only|go(?:es)? through)\b(?:[^.;!?]|\.\w)*[,—–]\s*(?:and\s+)?never\s+\w",
        // "By the way, `npm run lint` here is eslint with --max-warnings 0": said to be known.
        r"|^(?:by the way|btw|fyi|for the record|worth knowing|good to know)\b[\s,:-]+\S+\s+(?:here\s+)?(?:is|are|runs|needs|requires|uses|fails|breaks|means)\b",
        r"|^(?:(?:please|pls|plz|also|and|but|so|oh|btw)[\s,]+)?never\s+\w+",
        r"|^(?:(?:please|pls|plz|also|and)\s+)?use\s+\S+.*\b(?:instead of|rather than|not|over)\b",
        // "format with nph, not nimpretty"; "nixfmt-rfc-style for formatting, not alejandra".
        r"|^(?:(?:please|pls|plz|also|and)\s+)?(?:format|lint|build|test|package|type-?check|log)\s+(?:(?:all|any|every|our|the|new)\s+\w+\s+|code\s+|everything\s+)?(?:with|using|via)\s+\S+,?\s+(?:not|never|instead of|rather than)\s",
        r"|^(?:[\w.@/+-]*[\d.@/+-][\w.@/+-]*|[a-z][\w.@/+-]*-[\w.@/+-]+|[a-z]+fmt|ruff|black|prettier|biome|eslint|pnpm|yarn|bun|uv|poetry|pdm)(?:\s\S+)?\s+for\s+(?:formatting|linting|tests|testing|type-?checking|builds|building|packaging|logging|dependencies|deps|migrations)\b,?\s+(?:not|never|instead of|rather than)\s",
    ))
});

/// Phrases that scope a rule to a lasting place; they are not task-scope markers.
static LASTING_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:in|for|across) (?:this|that) (?:repo|repository|project|codebase|monorepo|workspace|team|code base|plugin|library|crate|firmware|extension)\b",
        // "tests here are munit-cats-effect": how things are done in the place.
        r"|\b(?:tests|specs|migrations|files|modules|components|commits|logs|errors|packages|dependencies|deps|builds|imports|strings|messages|scripts|sources|templates|queries|handlers|services|jobs|models)\s+here\s+(?:are|go|use|live|must|should|need|run|get)\b",
        // "Everything here is deployed with stow": all of the place, done one way; "every
        // change here", "any ALTER on the big tables here".
        r"|\b(?:every|any|all|each)\s+(?:[\w-]+\s+){1,5}?here\s+(?:goes|go|is|are|gets|get|must|should|needs?|uses?|runs?|lives?|bumps?|has|have|takes?)\b",
        r"|\b(?:applies to|to|for) (?:every|any|all|each)\s+[\w-]+\s+here\b",
        // "validation always goes in a FormRequest class here": where a kind of thing lives
        // (a path's dots and all: "errors always go in src/error.rs here").
        r"|\b(?:always|never)\s+(?:goes|go|lives?|belongs?|stays?)\s+(?:in|into|under)\s[^;!?]{3,60}?\bhere\b",
        // "This one is a standing thing for the repo: …" names the rule that follows.
        r"|\b(?:this|that)(?: one)? is (?:a|the|our) (?:standing|lasting|permanent|general|house)\b",
        r"|^(?:(?:and|also|but|so)[\s,]+)?everything\s+here\s+(?:is|goes|gets|lives|must|should|runs|uses)\b",
        // "And just so it's said: …" says the rule out loud, it ties nothing to the task.
        r"|\bjust so (?:it'?s said|you know|we'?re clear|you'?re aware|it'?s clear|there'?s no doubt)\b",
        // "the usual way here: …", "we're a bun shop: … never node here".
        r"|\b(?:usual|normal|house|our)\s+way\s+here\b|\bwe'?re an? [\w-]+ shop\b|:\s*(?:always|never)\b[^.;!?]{0,60}\bhere\b",
        r"|\bin here\b|\bfrom here\b|^(?:by the way|btw|fyi)\b[\s,:-]+(?:\S+\s+)?here\b|\b(?:house style|style|convention|rule|policy|norm|standard)s? (?:here|in here)\b",
        // "We use `deno fmt` here": the place the team works, not the task's spot.
        r"|\b(?:we|i) (?:use|run|prefer|write|keep|follow|stick to|go with|(?:don'?t|do not|never)\s+(?:(?:pip|npm|gem|cargo|brew|apt|go)\s+)?(?:use|run|add|write|commit|hand-roll|call|import|install|put|touch|edit|mock|vendor|pin))\b(?:[^.;:!?]|\.\w){0,80}?\bhere\b",
        // "we use kotlinx.serialization here, not Jackson — don't add it": the one set aside.
        r"|\bnot\s+[^.;!?]{1,40}?[—–,;-]+\s*(?:don'?t|do not|never)\s+(?:add|use|install|import|bring|pull)\s+(?:it|that|them|those)\b",
        // "Don't use npm here, ever": a tool named, refused in the project.
        r"|\b(?:don'?t|do not)\s+(?:use|run|call|install)\s+[\w.@/-]+\s+here\b(?:,?\s+ever\b|\s+at all\b)",
        // "When you add a migration here, also run `dbmate dump`": every one, in the place.
        r"|\bwhen(?:ever)?\s+(?:you|we|anyone)\s+(?:touch|edit|change|add|create|modify|update)\b[^.;,!?]{0,60}\bhere\b",
        // "SharedPreferences is banned here": the project's rule.
        r"|\b(?:banned|forbidden|not allowed|disallowed|mandatory|required|the norm|non[- ]?negotiable) here\b",
        // "And yes, always run `swift format lint` before you call something done here."
        r"|^(?:(?:and|also|but|so|yes|yeah|ok|okay)[\s,]+){0,2}(?:always|never)\s+(?:[^.;!?]|\.\w){1,100}?\bhere\b",
        // "keep this in mind": a remember request, not this task's thing; "keep it that way".
        // (And "keep it that way" states the rule it ends.)
        r"|\bkeep (?:this|that|it|the following) in mind\b|\bkeep (?:it|them|things) (?:that|this) way\b",
    ))
});

/// Markers that tie a sentence to the task at hand.
static TASK_SCOPE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:this time|for now|right now|for this one|this one|today|tonight|at the moment|just|for the moment|here|this round|this once|for once|one-off|make a habit of|there anyways?)\b",
        // "I always mix them up": the speaker's own habit of mind, no rule for the agent.
        r"|\b(?:i|we)\s+(?:always|never|usually|keep|can never|can'?t ever)\s+(?:mix|forget|remember|recall|confuse|get confused|mess|mistype|misremember|lose track|wonder|struggle)\b",
        r"|^(?:always|usually)\s+(?:mix|confuse|get confused|mess)\b",
        // "This app uses too much memory": a complaint about now.
        r"|\buses? (?:way )?(?:too|so) (?:much|many|little)\b",
        // "Don't fix anything, I want to look at it myself": hands off this task.
        r"|\b(?:don'?t|do not)\s+(?:fix|change|touch|edit|modify|commit|push|do|run|write|delete|merge)\s+(?:anything|everything|any of (?:it|this|that)|it yet|yet)\b",
        r"|\b(?:do|fix|change|make|put|move|use|keep|leave|run|try|write|add|remove|delete|revert|amend|touch|handle|update|rename|commit|push|merge|test|debug|ship|deploy|build|split|rewrite|finish|redo|undo|open|close|send)\s+(?:it|this|that|these|those|them)\b",
        r"|\b(?:never|nver|nevr) ?mind\b",
        // "we don't call it anywhere anymore": a fact of the code at hand; "the deadline is
        // non-negotiable": a thing of the week.
        r"|\b(?:call|use|reference|import|need|touch)\s+(?:it|this|that|them)\s+anywhere\b|\bdeadlines?\b",
        // "Leave the machine alone, I'll sort the driver out myself": hands off, this time.
        r"|\bi'?ll\s+[^.;!?]{0,40}\bmyself\b",
        // "Don't open the PR yet": not before the user says so, in this task.
        r"|\b(?:don'?t|do not|not)\b[^.;!?]{0,40}\byet\b",
        // "… — and don't forget the down migration": a thing of this task not to leave out.
        r"|\b(?:don'?t|do not) forget (?:the|about the) [\w-]+(?:\s+[\w-]+)?\s*[.!]?\s*$",
        r"|\b(?:this|that|these|those)\s+(?:file|files|function|bug|test|tests|pr|branch|change|changes|commit|task|issue|error|module|class|method|line|lines|script|case|step|failure|query|endpoint|ticket|migration|fix|patch|run|release|deploy|deployment|rollout|demo)\b",
        // "Always use the sandbox gateway for this": the thing at hand ("for this repo" is
        // a place, taken out before).
        r"|\bfor this\s*(?:[.;,!?]|$)",
        // "No, the other file.": a pointer to another thing of the task, nothing more.
        r"|^(?:no|nope|wrong)\b[\s,!.—–-]+(?:the|that)\s+other\s+[\w.-]+\s*[.!]?\s*$",
        // "she's mid-rebase this week": how things stand for a while.
        r"|\bthis (?:week|weekend|sprint|morning|afternoon|evening|month|cycle)\b",
        // "the new dev image brings 21 next week": how things stand until then.
        // ("From next week on, always squash-merge" starts a rule.)
        r"|\bnext (?:week|weekend|sprint|month|cycle)\s*(?:[.,;!)]|$)",
        // "At my old job we always ran vitest with --no-threads": another place's habit.
        r"|\b(?:at|in) my (?:old|last|previous|former|first|other) (?:job|company|workplace|team|gig|employer|shop|place)\b|\bwhen i (?:was|worked) at\b",
        r"|\b(?:in|for) (?:the|our) other (?:repos?|repositor(?:y|ies)|projects?|codebases?)\b",
        // "I love that you always write the failing test first": praise of what was done.
        r"|\b(?:love|like|appreciate|enjoy)\s+(?:that|how|it that)\s+you\b",
        // "that's exactly what I meant: typed everything": the rule said before, pointed at.
        r"|\b(?:that'?s|that is|this is)\s+(?:exactly\s+|precisely\s+|just\s+)?what i (?:meant|said|asked for)\b",
    ))
});

/// The imperative verbs a request opens with.
static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^(?:(?:new|next|another) task\s*[:-]\s*|task\s*[:-]\s*|todo\s*[:-]\s*)?(?:(?:please|pls|plz|can you|could you|would you|now|then|also|and|so|ok|okay)[\s,]+)*",
        r"(?:fix|add|implement|update|write|create|build|check|look|find|investigate|debug|refactor|rename|move|remove|delete|change|tell|explain|show|help|review|port|migrate|bump|upgrade|install|set up|setup|deploy|try|figure|get|give|clean|speed up|make|run|see|read|open|split|convert|wire|hook|replace|drop|generate|profile|measure|trace|diagnose|commit|release|publish|ship|redo|retry|rerun|re-run|restart|proceed)\b",
    ))
});

/// A request to make something new: what follows describes the thing.
static MAKING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:new|next|another) task\s*[:-]\s*|task\s*[:-]\s*|todo\s*[:-]\s*)?(?:(?:please|pls|plz|can you|could you|would you|now|then|also|and|so|ok|okay)[\s,]+)*(?:add|implement|create|introduce|generate|set up|setup)\s+(?:an?\s|new\s|per-|support\b|\w+ing\b)",
    )
});

/// What a clause lays down: of a request, not its asides ("Add a PodDisruptionBudget
/// (minAvailable 1 by default)"), nor, of one to make something, the default it gives the
/// thing ("Add rate limiting, 60 requests/min per key by default").
fn as_said(clause: &str) -> String {
    static DEFAULT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bby default\b"));
    if !is_request(clause) {
        return clause.to_string();
    }
    let said = without_asides(clause);
    if MAKING.is_match(without_label(&without_code(clause))) {
        return DEFAULT.replace_all(&said, " ").into_owned();
    }
    said
}

/// Where a sentence joins clauses that may be a task and a rule, or two rules.
static CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\s*;\s*|(?:,|\s[—–])\s*(?:and|but|plus)\s+(?:also\s+)?|\s+and\s+(?:also\s+)?(?P<next>(?:always|never|don'?t|do not|keep|prefer|make sure)\b)",
    )
});

/// How a rule of its own opens: a marker or an imperative verb.
static RULE_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:please|pls|plz|also|and)\s+)?(?:always|never|don'?t|do not|keep|use|prefer|run|write|put|make|avoid|stop|format|name|commit|pin|lock|call)\b",
    )
});

/// `text` without what it says in parentheses.
fn without_asides(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// `text` with its code spans blanked, so a recipe named `just test` is no marker.
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        if c == '`' {
            inside = !inside;
            out.push(' ');
        } else if !inside {
            out.push(c);
        }
    }
    out
}

/// True when `text` carries a lasting marker (an "alwyas" is meant as one too).
pub(crate) fn is_lasting(text: &str) -> bool {
    static MISSPELT: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:alwyas|allways|alwasy|awlays|alwys|alawys)\b|\b(?P<never>nevr|nver|neevr)\b"));
    let plain = without_code(text);
    let plain = MISSPELT.replace_all(&plain, |c: &regex::Captures| match c.name("never") {
        Some(_) => "never",
        None => "always",
    });
    let plain = EVERY_TIME_REPORT.replace_all(&plain, |c: &regex::Captures| match is_report(&c[0]) {
        true => " ".to_string(),
        false => c[0].to_string(),
    });
    let plain = A_TIME_TO_COME.replace_all(&plain, " ");
    // ("If a test fails, rerun it with -v every time." says when to do something.)
    static CONDITION: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^\W*(?:if|when|whenever)\b"));
    let plain = match CONDITION.is_match(&plain) {
        true => plain,
        false => BREAKS_EVERY_TIME.replace_all(&plain, " "),
    };
    let plain = DOES_FOR_EVERY.replace_all(&plain, " ");
    let plain = NO_SURPRISES.replace_all(&plain, " ");
    let plain = IN_PRACTICE.replace_all(&plain, " ");
    let plain = AGENT_HABIT.replace_all(&plain, " ");
    let plain = SINCE_WE_SWITCHED.replace_all(&plain, " ");
    let plain = SETTLES_AN_ANSWER.replace_all(&plain, " ");
    let moved = MOVED_TO.captures_iter(&plain).any(|c| {
        !["the", "a", "an", "its", "their", "our", "my", "his", "her"].contains(&c["to"].to_lowercase().as_str())
    });
    if uses_only(&plain) || moved || relays_a_rule(&plain) || kind_always(&plain) {
        return true;
    }
    let plain = KEEPS_HAPPENING.replace_all(&plain, |c: &regex::Captures| match is_thing(&c["what"]) {
        true => c[0].to_string(),
        false => " ".to_string(),
    });
    LASTING.is_match(&plain) || PROHIBITION.is_match(plain.trim())
}

/// A sentence that opens by forbidding something.
static PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:(?:please|pls|plz|also|and|but|so|oh|btw)[\s,]+)?(?:don'?t|do not|dont|avoid|stop)\s+\w+")
});

/// True when `text` forbids something and says nothing more that would make it last.
fn is_bare_prohibition(text: &str) -> bool {
    let plain = without_code(text);
    let plain = plain.trim();
    PROHIBITION.is_match(plain) && !is_a_told_prohibition(plain) && !LASTING.is_match(plain)
}

/// "Don't call plain `mvn` in this repo, ever", "Don't edit man/ directly, it's
/// generated": a prohibition said with its reason or its reach. A bare one ("Don't add
/// tenacity.", "Don't chmod the socket, no.", "don't change docker-compose.yml either") only
/// keeps the agent's hands off something in this task.
fn is_a_told_prohibition(text: &str) -> bool {
    // (A "no" or an "either" at the end points back at the task; it is no reason.)
    static BARE_TAIL: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)(?:,\s*(?:no|please|pls|thanks)|\s+either|\s+(?:for )?now)?\s*[.!]*\s*$"));
    static SAID_MORE: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)[,;:—–(]|\s-\s|\b(?:because|since|as it|otherwise|so that|instead)\b"));
    let text = text.trim();
    if !PROHIBITION.is_match(text) {
        return false;
    }
    let said = BARE_TAIL.replace(text, "");
    said.split_whitespace().count() >= 7 || SAID_MORE.is_match(&said)
}

/// "Our imports always go through the import map", "every handler never panics", "PRs here
/// always start as drafts", "env-specific changes always go in a patch under overlays/":
/// what all of a kind of thing of the project does. ("Our builds always fail on CI" tells a
/// trouble, "our CI never caches the registry" how one thing is, "this always happens" what
/// happened.)
fn kind_always(text: &str) -> bool {
    static KIND_ALWAYS: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)^(?:(?:and|also|but|so)[\s,]+)?(?:(?:all|every|each)\s+(?:[\w*.`/-]+\s+){1,2}",
            r"|(?:our\s+)?(?:[\w*.`/-]+\s+)?(?P<kind>[\w*.`/-]+s)\s+(?:here\s+|in this (?:repo|project)\s+)?)",
            r"(?:always|never)\s+(?P<verb>\w+)",
        ))
    });
    static TROUBLE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:fail|break|crash|hang|flake|time|pass|work|succeed|finish|seem|take|took|happen|die|panic|error)(?:s|es|ed)?$",
        )
    });
    // Without "our" or "all" before it, a kind of thing is said of only by the way it is done
    // ("PRs here always start as drafts", "changes always go in a patch").
    static RULE_VERB: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:go|goes|start|starts|use|uses|need|needs|live|lives|sit|sits|get|gets|have|has|follow|follows|stay|stays|land|lands|target|targets|import|imports|wrap|wraps|carry|carries|include|includes|end|ends)$",
        )
    });
    // (Words in -s that name no kind of thing.)
    const NO_KIND: &[&str] =
        &["this", "thus", "does", "was", "has", "his", "its", "is", "as", "us", "yes", "plus", "always"];
    // ("close, but: PRs here always …": what the rule follows.)
    let said = text
        .rsplit_once(": ")
        .filter(|(before, _)| before.split_whitespace().count() <= 3)
        .map_or(text, |(_, after)| after);
    KIND_ALWAYS.captures(said.trim_start()).is_some_and(|c| {
        let kind = c.name("kind").map(|k| k.as_str().to_lowercase());
        let bare = kind.is_some() && !c[0].to_lowercase().contains("our ");
        !TROUBLE.is_match(&c["verb"])
            && kind.is_none_or(|k| k.len() >= 3 && !NO_KIND.contains(&k.as_str()))
            && (!bare || RULE_VERB.is_match(&c["verb"]))
    })
}

/// "Hana says PR titles have to be conventional commits", "the CONTRIBUTING says never …": a
/// rule of the team's, relayed by the user. (Not "it says the field must be set", an error
/// told; nor "Hana says the build must be green by Friday", a thing of the week.)
fn relays_a_rule(text: &str) -> bool {
    static RELAYED: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"^(?i:(?:also|and|oh|btw|fyi|but)[\s,]+)?(?P<who>[A-Z][a-z]+|(?i:(?:the|our|my) (?:readme|contributing(?: guide)?|docs|wiki|style ?guide|team|tech lead|team lead|lead|reviewers?|maintainers?)))",
            r"\s+(?:says|said|wants|insists|told me|reminded me)\b(?:\s+(?:that|us|me))?\s+",
            r"(?i:[^.;!?]*\b(?:have to|has to|must|always|never|should always|should never)\b)",
        ))
    });
    // "the team lead wants no `:refer :all` anywhere", "… wants all migrations reversible":
    // what none or all of a kind of thing may be. ("Docker says no space left" tells an error.)
    static WANTS_ALL: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"^(?i:(?:also|and|oh|btw|fyi|but)[\s,]+)?(?P<who>[A-Z][a-z]+|(?i:(?:the|our|my) (?:team|tech lead|team lead|lead|reviewers?|maintainers?)))",
            r"\s+(?:wants|insists on)\s+(?i:no|all|every|each)\s+\S",
        ))
    });
    let Some(caps) = RELAYED.captures(text.trim_start()).or_else(|| WANTS_ALL.captures(text.trim_start())) else {
        return false;
    };
    let pronoun = ["It", "This", "That", "He", "She", "They", "Everyone", "Nobody", "Someone", "Which", "What", "Who"];
    // ("Gradle says it must …", "Postgres says the column must …": a tool's error told.)
    static TOLD: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:says|said)\s+(?:that\s+)?(?:it|the\s+\w+)\s+must\b"));
    // ("Hana wants all tests green by Friday": a thing of the week.)
    static DEADLINE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:by|before|until|till) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|the (?:end of|release|demo|deadline)|end of (?:day|week|the week|month))\b",
        )
    });
    !pronoun.contains(&&caps["who"]) && !TASK_SCOPE.is_match(text) && !TOLD.is_match(text) && !DEADLINE.is_match(text)
}

/// "I keep shipping broken quoting", "I keep copy-pasting it": what keeps happening, the reason for a rule, lays down
/// nothing ("I keep everything in UTC" does).
static KEEPS_HAPPENING: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bi\s+keep\s+(?:on\s+)?(?P<what>\w+(?:-\w+)*ing)\b[^.;,!?]*"));

/// True for a word in "-ing" that names a thing (`everything`, `strings`), not a doing.
fn is_thing(word: &str) -> bool {
    let word = word.to_lowercase();
    word.ends_with("thing")
        || ["string", "spring", "setting", "heading", "building", "ceiling"].contains(&word.as_str())
}

/// True when an "every time …" tells what happened rather than when to do something: "the
/// server restarted", not "a PR is merged" nor "you need new types".
fn is_report(said: &str) -> bool {
    let words: Vec<String> = said.split_whitespace().map(str::to_lowercase).collect();
    let passive = words.iter().any(|w| matches!(w.as_str(), "is" | "are" | "gets" | "get" | "be" | "been"));
    let last = words.last().map_or("", String::as_str);
    let not_past = ["need", "seed", "feed", "speed", "embed", "proceed", "exceed", "succeed"].contains(&last);
    !passive && !not_past
}

/// "home-manager moving under me breaks my laptop config every time": how often a trouble
/// comes, the reason for a rule, not one.
static BREAKS_EVERY_TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:breaks|fails|crashes|hangs|dies|bites|burns|blows up|falls over|times out|goes wrong)\b[^.;!?]{0,60}?\b(?:every|each) (?:single )?time\b",
    )
});

/// "`formatPrice` prints `€1234.5` for every locale": what the code does now, a bug report.
static DOES_FOR_EVERY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:prints|returns|shows|outputs|renders|displays|produces|emits|yields|gives back)\b[^.;!?]{0,60}?\b(?:for|in|on|with) (?:every|all|any|each)\b",
    )
});

/// "I don't want surprises there" gives the reason for a rule, it lays down none.
static NO_SURPRISES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:we|i)\s+(?:don'?t|do not)\s+want\s+(?:any\s+|more\s+)?(?:surprises|trouble|problems|issues|drama|breakage|a repeat|that again|this again)\b",
    )
});

/// "Supplier refs are never longer than 255 in practice": how the data is, not a rule.
static IN_PRACTICE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:always|never)\b[^.;!?]{0,80}\bin practice\b"));

/// "Great, you always pick sensible names 👍", "nice — you always put the doctest in, I like
/// that": what the agent does, praised (or blamed), not what to do.
static AGENT_HABIT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^\W*(?:(?:great|nice|good|cool|thanks|thank you|wow|perfect|ok|okay|love it|honestly|ugh)\W+)*",
        r"you\s+(?:always|never)\s+(?:pick|put|write|add|get|make|do|remember|forget|catch|find|keep|use|come up|give|name|leave|miss|break)\b",
    ))
});

/// "We've moved beryl to Swift Testing": where the project went, and stays. ("We moved the
/// handler to the api module" tells of the code, not of a tool.)
static MOVED_TO: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\bwe(?:'ve| have)?\s+(?:switched|moved|migrated)\s+(?:[\w.-]+\s+){0,3}?(?:over\s+)?to\s+(?P<to>\w+)")
});

/// "The build broke after I switched to rootless Docker": a change that came before a
/// trouble, no way things are done.
static SINCE_WE_SWITCHED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:after|since|when|because|once|until|before|ever since)\s+(?:i|we)(?:'ve| have)?\s+(?:switched|moved|migrated|upgraded|changed)\s+(?:[\w.-]+\s+){0,3}?(?:over\s+)?to\b",
    )
});

/// "great, we're on node 22 so fine": what the project runs on, said to settle the answer
/// just given, no way things are done.
static SETTLES_AN_ANSWER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bwe'?re\s+(?:on|using)\b[^.;!?]{1,40}?,?\s+so\s+(?:it'?s\s+|that'?s\s+|we'?re\s+|all\s+)?(?:fine|ok|okay|good|covered|safe)\b[.!]*\s*$",
    )
});

/// True for "cinquefoil uses constructor injection only", "ledger only uses jOOQ" or "New UI
/// in sidra is Jetpack Compose only": what a thing called by its name always does (not "it"
/// or "the importer", the thing at hand, which "only uses the first sheet" as a fault).
fn uses_only(text: &str) -> bool {
    static USES_ONLY: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:(?:also|and|but|so|btw)[\s,]+)?(?P<who>[\w.-]+)\s+(?:only uses\b|uses\s+(?:[\w@.-]+\s+){1,3}only\b)",
        )
    });
    let pronoun = |w: &str| {
        ["it", "this", "that", "which", "he", "she", "there", "who", "everyone", "nobody", "one"]
            .contains(&w.to_lowercase().as_str())
    };
    // ("New UI in sidra is Jetpack Compose only, no new XML layouts.": a kind of thing in a
    // place, held to one way.)
    static IS_ONLY: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:(?:also|and|but|so|btw)[\s,]+)?(?:new\s+)?(?P<who>[\w.-]+)(?:\s+[\w.-]+)?\s+in\s+[\w.-]+\s+(?:is|are)\s+(?:[\w@.+-]+\s+){1,3}only\s*(?:[,;.]|$)",
        )
    });
    // (Not a thing at hand: "The crash in staging is Android only.")
    let at_hand = |w: &str| ["the", "a", "an", "these", "those", "my", "your"].contains(&w.to_lowercase().as_str());
    USES_ONLY.captures(text.trim_start()).is_some_and(|c| !pronoun(&c["who"]))
        || IS_ONLY.captures(text.trim_start()).is_some_and(|c| !pronoun(&c["who"]) && !at_hand(&c["who"]))
}

/// "Build it the way we always do: `stack build --fast --pedantic`": the object is the
/// task's, the way that follows is the standing one.
static THE_WAY_WE_ALWAYS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b\w+\s+(?:it|this|them|that)\s+(?:(?:the (?:same )?way|like|as)\s+(?:we|i)\s+(?:always|usually)\s+(?:do|does|did)|as always|as usual|like always",
        r"|the (?:same )?way we (?:do|write|handle|structure|name|test|build)\s+[^.;:!?]{1,40}?\beverywhere)",
        r"\s*(?::|,|-|with\b|using\b)\s*\S",
    ))
});

/// "observedAt not in the future" says what a value may be, not from when a rule holds.
static A_TIME_TO_COME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:not|never|be|is|are|was|were|isn'?t|aren'?t|dates?|datetimes?|timestamps?)\s+(?:in|for) (?:the )?future\b",
    )
});

/// "every time" followed by what happened tells how often a trouble came, no rule: "we
/// dropped the connection every time the server restarted".
static EVERY_TIME_REPORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:every time|each time|whenever)\s+(?:(?:the|a|an|my|our|it|we|they|i|he|she)\s+)?(?:[\w-]+\s+){0,2}?(?:\w+ed|went|broke|ran|came|got|hung|lost|threw|fell|took|gave|saw|did|was|were)\b",
    )
});

/// A place that scopes what a request changes ("bump the MSRV for this crate"): in a
/// request to do something once, it lays down no rule.
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:in|for|across) (?:this|our|the) (?:repo|repository|project|codebase|monorepo|workspace|code base|plugin|library|crate|firmware|extension)\b|\bacross the (?:repo|repository|project|codebase|monorepo|code base)\b",
        // ("Update the copyright year at the top of every file": every file, once.)
        r"|\b(?:of|on|at the top of|at the end of) every\s+(?:[\w.-]+\s+)?(?:file|module|class|function|test|handler|script|package|page|component|migration)s?\b",
    ))
});

/// The verbs of a request that changes something once: a place it names is where, not how
/// things are always done ("Please run clippy in this repo before pushing" is a rule).
static ONE_OFF_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:please|pls|plz|can you|could you|would you|now|then|also|and|so|ok|okay)[\s,]+)*(?:fix|add|implement|update|create|bump|upgrade|migrate|port|rename|move|remove|delete|refactor|set up|setup|install|deploy|release|publish|generate|convert|split|replace|drop|clean up|investigate|debug|enable|disable|raise|lower|increase|decrease|speed up)\b",
    )
});

/// True when `clause` carries a lasting marker of its own, not one of a request's asides nor
/// the place a one-off change is made in.
fn lays_down(clause: &str) -> bool {
    is_lasting(&as_said(clause))
        && !is_placed_request(clause)
        && !is_bare_prohibition(clause)
        && !is_described_request(clause)
        && !NAGS.is_match(clause)
}

/// Emphasis with no rule in it ("I don't want to say it a third time.", "Don't make me
/// repeat this."): the rule is the sentence it leans on.
static NAGS: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^(?:(?:and|but|so|seriously|please)[\s,]+)?(?:(?:i|we)\s+(?:really\s+)?(?:don['’]?t|do not)\s+want\s+to|don['’]?t\s+make\s+me|",
        r"i\s+(?:shouldn['’]?t|should not)\s+have\s+to)\s+(?:say|tell you|repeat|explain|ask for)\s+(?:(?:it|this|that)\s+)?",
        r"(?:again|twice|once more|(?:a|one more|another)(?:\s+(?:second|third|fourth|fifth|\w+th))?\s+time)\b[.!]*$",
    ))
});

/// True when `text` asks for a thing and only what the thing does sounds lasting ("add a
/// route handler that returns upcoming litters across all kennels"): a relative clause
/// describes what to make, it lays down no rule.
fn is_described_request(text: &str) -> bool {
    // (The clause runs to the next comma or stop; "make sure that tests never …" is no
    // relative clause, nor is "that always …".)
    static WHAT_IT_DOES: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)(?P<before>\w+)\s+(?:that|which)\s+(?:also\s+)?(?P<verb>[a-z]{3,}s)\b[^.;:!?,]*"));
    const NO_RELATIVE: &[&str] =
        &["sure", "ensure", "check", "remember", "note", "say", "says", "mean", "means", "know"];
    let mut described = false;
    let without = WHAT_IT_DOES.replace_all(text, |c: &regex::Captures<'_>| {
        let before = c["before"].to_lowercase();
        let verb = c["verb"].to_lowercase();
        if NO_RELATIVE.contains(&before.as_str()) || ["always", "tests", "files"].contains(&verb.as_str()) {
            return c[0].to_string();
        }
        described = true;
        format!("{} ", &c["before"])
    });
    is_request(text) && described && !is_lasting(&without)
}

/// True when `text` asks for a one-off change and only a place makes it sound lasting.
fn is_placed_request(text: &str) -> bool {
    // "Install dependencies with pnpm in this repo, not npm", "Add a trailer to commits in
    // this repo": a way set against another, or a kind of thing done every time, is a rule.
    static STANDING: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i),?\s+(?:not|never|instead of|rather than)\b|\b(?:commits|dependencies|deps|packages|migrations|releases|prs|pull requests|files|tests|modules|endpoints|branches)\b",
        )
    });
    let plain = without_code(text);
    ONE_OFF_CHANGE.is_match(plain.trim_start())
        && !STANDING.is_match(&plain)
        && !is_lasting(&PLACE.replace_all(&plain, " "))
}

/// What just happened, said as the reason for a rule ("don't pip install anything, that
/// just went into conda base"): "just" tells when, not how little to do.
static JUST_HAPPENED: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:that|it|this|which|they|you)\s+(?:has\s+|have\s+)?just\s+(?:went|got|broke|overwrote|installed|wiped|deleted|landed|ended up|clobbered|polluted)\b|\byou\s+just\s+(?:wrote|made|added|created|changed|edited|did)\b",
        // "those targets are just skipped on Linux": how it goes, not how little to do.
        r"|\b(?:is|are|was|were|gets?|got)\s+just\s+\w+ed\b",
        // "positional soup is how this bug happened": the reason, from what went wrong.
        r"|\b(?:is|was|that'?s) (?:how|why) (?:this|that|the) [\w-]+ (?:happened|started|came about|broke|crept in)\b",
    ))
});

/// True when `text` is tied to the task at hand.
pub(crate) fn is_task_scoped(text: &str) -> bool {
    // "Keep it C11 without GNU extensions" names a standard the code keeps, where "keep it
    // short" shapes this one answer.
    static KEEP_A_STANDARD: LazyLock<Regex> = LazyLock::new(|| re(r"\b[Kk]eep (?:it|them) [A-Z0-9]"));
    // "In the infra-bootstrap repo we never use registry modules, …, but here …": another
    // repo's rule, set against this one's. (A user may name their own repo too; and "here"
    // would read as a lasting place below.)
    static OTHER_REPO: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)\b(?:in|for|at) the [\w.-]+ (?:repo|repository|codebase)\b[^.;!?]*\b(?:there|but here|not here)\b")
    });
    let plain = without_code(text);
    if OTHER_REPO.is_match(&plain) {
        return true;
    }
    let plain = KEEP_A_STANDARD.replace_all(&plain, " ");
    // "Convention here, keep it: …": keep to what follows.
    static KEEP_TO_IT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bkeep (?:it|to it|that)\s*[:—–]"));
    let plain = KEEP_TO_IT.replace_all(&plain, " ");
    // "… we put type restrictions on all public defs, pls keep it like that": keep to the
    // rule just said, to the end of the sentence.
    static KEEP_IT_SO: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)[,;—–-]\s*(?:so\s+)?(?:(?:pls|please|plz)[\s,]+)?keep (?:it|that|this|them|to (?:it|that|this))(?:\s+(?:like (?:that|this)|that way|this way|in (?:all )?new code|from now on|going forward))?(?:,?\s*(?:pls|please|plz|thanks|thx))?[.!]*\s*$",
        )
    });
    let plain = KEEP_IT_SO.replace_all(&plain, " ");
    let plain = LASTING_PLACE.replace_all(&plain, " ");
    let plain = JUST_HAPPENED.replace_all(&plain, " ");
    let plain = THE_WAY_WE_ALWAYS.replace_all(&plain, " ");
    // "any write that touches two tables": a kind of thing, said of all of them, where "write
    // that" would read as a request about one.
    static ANY_THAT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:any|every|each|all|no)\s+[\w-]+\s+that\b"));
    let plain = ANY_THAT.replace_all(&plain, " ");
    // "Wherever Bun has its own API, use it": the pronoun is what the condition named.
    static WHEREVER_IT: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)\b(?:wherever|whenever)\b[^.;!?]{1,80},\s*(?:use|prefer|pick|take|run|do)\s+(?:it|that|them)\b")
    });
    let plain = WHEREVER_IT.replace_all(&plain, " ");
    TASK_SCOPE.is_match(&plain)
}

/// True when `text` speaks of a state of the moment that will pass ("Ana's fixing legacy/
/// this week", "it's my preview, I've killed it"). (Not a reason from the past: "I had to
/// rotate every key yesterday because of that" is why a rule stands.)
pub(crate) fn is_of_the_moment(text: &str) -> bool {
    static MOMENT: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)\b(?:this (?:week|sprint|month|morning|afternoon|evening)|today|tonight|for now|right now|",
            r"at the moment|for the moment|(?:i'?ve|i have) (?:killed|stopped|closed) it)\b",
        ))
    });
    MOMENT.is_match(text)
}

/// True when `text` opens as a request of the agent ("please add …", "fix …").
pub(crate) fn is_request(text: &str) -> bool {
    REQUEST.is_match(without_label(&without_code(text)))
}

/// `text` without a project's name it opens with as a label (`topaz: add …`, `api-gateway:
/// fix …`): the request starts after it. A topic heading (`Tests: run pytest before you
/// push`), capitalised or a kind of thing, and a label that introduces a rule (`Rule:`,
/// `Remember:`) are kept: what follows them may be the rule.
fn without_label(text: &str) -> &str {
    static LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"^(?P<name>[a-z][\w.-]*):\s+"));
    const TOPICS: &[&str] = &[
        "rule",
        "rules",
        "remember",
        "reminder",
        "note",
        "nb",
        "convention",
        "policy",
        "fyi",
        "important",
        "tip",
        "preference",
        "also",
        "heads-up",
        "psa",
        "update",
        "context",
        "background",
        "tests",
        "test",
        "commits",
        "style",
        "docs",
        "naming",
        "errors",
        "logging",
        "formatting",
        "lint",
        "linting",
        "ci",
        "deps",
        "dependencies",
        "imports",
        "migrations",
        "branches",
        "prs",
        "reviews",
        "releases",
        "security",
        "types",
    ];
    let text = text.trim_start();
    match LABEL.captures(text) {
        Some(c) if !TOPICS.contains(&&c["name"]) => &text[c.get(0).map_or(0, |m| m.end())..],
        _ => text,
    }
}

/// The standing rules a sentence states, each as it should be kept: the whole sentence when
/// it is one rule (with any plain statements around it), each rule on its own when it joins
/// a task to a rule or several rules, nothing when it is a request or tied to the task.
pub(crate) fn rules_in(sentence: &str) -> Vec<String> {
    let clauses: Vec<&str> = split_clauses(sentence);
    if clauses.len() <= 1 {
        // "Add a PodDisruptionBudget (minAvailable 1 by default)": an aside of a request
        // describes what to make, it lays down no rule.
        let kept = lays_down(sentence) && !is_task_scoped(sentence);
        return if kept { vec![sentence.to_string()] } else { Vec::new() };
    }
    // "add POST /extend that pushes the expiry out by 30 minutes, but never more than 8 hours
    // after creation": a bound of what the request makes, no rule of how to work.
    static BOUND: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:(?:but|and|yet)\s+)?(?:never|not|no)\s+(?:(?:more|less|fewer|longer|shorter|later|earlier|higher|lower|bigger|smaller|larger)\s+than|(?:above|below|over|under|past|beyond)\s+\d)\b",
        )
    });
    let asks = clauses.iter().any(|c| is_request(c));
    let lasting: Vec<bool> = clauses.iter().map(|c| lays_down(c) && !(asks && BOUND.is_match(c.trim()))).collect();
    let requests = clauses.iter().zip(&lasting).any(|(c, l)| !l && is_request(c));
    let rules = lasting.iter().filter(|l| **l).count();
    if rules == 0 {
        return Vec::new();
    }
    // "We always wrap errors with fmt.Errorf; never pkg/errors": rules said together, with
    // nothing of the task between them, are one rule and its other half.
    if !requests && (rules == 1 || !is_task_scoped(sentence)) {
        let kept = !is_task_scoped(sentence);
        return if kept { vec![sentence.to_string()] } else { Vec::new() };
    }
    // "… don't put credentials in the repo's gradle.properties; they belong in
    // ~/.gradle/gradle.properties": a statement that goes on about the rule's thing says
    // where it goes instead.
    let goes_on = |at: usize| {
        clauses.get(at).is_some_and(|next| {
            !lasting[at] && !is_request(next) && !is_task_scoped(next) && GOES_ON.is_match(next.trim_start())
        })
    };
    // "At my old job we used Scrivener, but don't pull it in here": a clause that only
    // points back at the one before says nothing once that one is left out.
    let only_a_pronoun = |i: usize| i > 0 && ONLY_A_PRONOUN.is_match(clauses[i]);
    let stands = |i: usize| lasting[i] && !is_task_scoped(clauses[i]);
    let kept = |i: usize| stands(i) && (!only_a_pronoun(i) || stands(i - 1));
    // Each run of rules side by side is kept as said, from its first clause to its last.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in (0..clauses.len()).filter(|&i| kept(i)) {
        let end = if goes_on(i + 1) { i + 1 } else { i };
        match runs.last_mut() {
            Some((_, last)) if *last + 1 >= i => *last = end.max(*last),
            _ => runs.push((i, end)),
        }
    }
    // ("House rule, and it applies to every change here: …": a label alone is no rule.)
    static BARE_LABEL: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)^\W*(?:(?:a|the|our|one)\s+)?(?:house|standing|team|library|project|repo|ground)?\s*rules?\W*$")
    });
    runs.into_iter()
        .map(|(first, last)| span(sentence, clauses[first], clauses[last]))
        .filter(|said| !BARE_LABEL.is_match(said))
        .map(|said| as_sentence(said, sentence))
        .collect()
}

/// The text of `whole` from where `first` starts to where `last` ends, both slices of it.
fn span<'a>(whole: &'a str, first: &str, last: &str) -> &'a str {
    let start = first.as_ptr() as usize - whole.as_ptr() as usize;
    let end = last.as_ptr() as usize - whole.as_ptr() as usize + last.len();
    whole.get(start..end).unwrap_or(whole)
}

/// A refusal whose object is only a pronoun for what the clause before named.
static ONLY_A_PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:(?:and|but|so|just)\s+)?(?:don'?t|do not|never)\s+[\w-]+\s+(?:it|them|that|those|one)\b")
});

/// A clause that goes on about what the one before it named.
static GOES_ON: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:they|it|those|these|that|which)\s+(?:belong|go|goes|live|lives|sit|sits|stay|stays|are|is)\b")
});

fn split_clauses(sentence: &str) -> Vec<&str> {
    // A split inside a code span would cut a command in two.
    let mut clauses = Vec::new();
    let mut start = 0;
    for caps in CLAUSE.captures_iter(sentence) {
        let Some(m) = caps.get(0) else { continue };
        let ticks = sentence[..m.start()].matches('`').count();
        let before = &sentence[start..m.start().max(start)];
        // "Always use pnpm and never …" joins two rules; "vitest sits in watch mode and never
        // exits" is one statement.
        let joins_rules = caps.name("next").is_none() || RULE_OPENING.is_match(before.trim_start());
        if ticks.is_multiple_of(2) && m.start() >= start && !before.trim().is_empty() && joins_rules {
            clauses.push(before);
            // "… and always …": the marker opens the next clause.
            start = caps.name("next").map_or(m.end(), |next| next.start());
        }
    }
    clauses.push(&sentence[start..]);
    clauses.into_iter().map(str::trim).filter(|c| !c.is_empty()).collect()
}

/// A clause cut from `whole`, capitalised and ended as a sentence of its own.
fn as_sentence(clause: &str, whole: &str) -> String {
    let clause = clause.trim().trim_end_matches([',', ';', ':']);
    let mut chars = clause.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push(if whole.ends_with('!') { '!' } else { '.' });
    }
    out
}

/// Openers that carry nothing of the rule itself, stripped from a kept preference so the
/// same rule said twice reads (and merges) as one: "Please remember that …", "Remember this
/// for later: …", "Also, …", "By the way, …".
static OPENER: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^(?:(?:thanks|thank you|great|perfect|ok|okay|cool|nice|oh|also|and|so|btw|by the way|one more thing|fyi|for the record|for future reference|note for (?:the )?future|going forward)[\s,:!.-]+)*",
        r"(?:(?:please\s+)?(?:(?:do\s+)?remember|(?:(?:the|a|our|one|quick|friendly|gentle|usual)\s+)?(?:house[- ]style\s+|style\s+|standing\s+)?reminder(?:\s+of\s+[^:,.]{1,40}:\s*)?|keep (?:(?:this|that|it|the following) )?in mind(?: in general)?|note|make a note|don'?t forget|do not forget)(?:\s+(?:this|that|the following))?(?:\s+for (?:later|the future|next time|future sessions))?(?:\s*[:,-]\s*|\s+that\s+|\s+))?",
    ))
});

/// The fact a preference or remember request states, without its opener, capitalised.
pub(crate) fn fact_of(text: &str) -> String {
    let stripped = OPENER.replace(text.trim(), "");
    // "Remember to run `cargo sqlx prepare` …" asks for a step: the step is the fact.
    let stripped = match stripped.strip_prefix("to ") {
        Some(step) if stripped.len() < text.trim().len() => step,
        _ => &stripped,
    };
    let stripped = stripped.trim();
    if stripped.split_whitespace().count() < 3 {
        return text.trim().to_string();
    }
    let mut chars = stripped.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text.trim().to_string(),
    }
}

/// Things a rule can be about, and how to say when it applies.
const SUBJECTS: &[(&str, &str)] = &[
    ("commit", "when committing"),
    ("branch", "when branching or merging"),
    ("migration", "when writing or changing migrations"),
    ("test", "when writing or running tests"),
    ("deploy", "when deploying"),
    ("release", "when releasing"),
    ("docs", "when writing docs"),
    (".rst", "when writing docs"),
    ("readme", "when writing docs"),
    ("python", "when writing Python"),
    ("rust", "when writing Rust"),
    ("typescript", "when writing TypeScript"),
    ("component", "when writing components"),
    ("sql", "when writing SQL"),
    ("dependenc", "when adding or updating dependencies"),
    ("install", "when installing packages"),
    ("format", "when formatting code"),
    ("lint", "when linting"),
    ("log", "when logging or reading logs"),
    ("secret", "wherever secrets are handled"),
    ("token", "wherever secrets are handled"),
    ("key", "wherever secrets are handled"),
];

/// When a kept preference applies, from what it names: the tool it replaces ("whenever
/// npm would be used"), what it is about ("when writing migrations"), the command it names
/// ("when running `make deploy`"), or else all work in the project.
pub(crate) fn when_it_applies(text: &str, project: &str) -> String {
    let plain = without_code(text).to_lowercase();
    static INSTEAD: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)(?:,\s*not|instead of|rather than)\s+`?([\w./:@-]+)`?"));
    if let Some(other) = INSTEAD.captures(text).and_then(|c| c.get(1)).filter(|m| m.as_str().len() >= 2) {
        let other = other.as_str().trim_end_matches(['.', ',', ';', ':']);
        if !other.is_empty() && !matches!(other, "the" | "a" | "an" | "to" | "be" | "do" | "it" | "by") {
            return format!("applies whenever `{other}` would be used in {project}");
        }
    }
    let words: Vec<&str> = plain.split(|c: char| !(c.is_alphanumeric() || c == '.')).collect();
    let about = |subject: &str| {
        words.iter().any(|w| w.starts_with(subject) || (subject.starts_with('.') && w.ends_with(subject)))
    };
    if let Some((_, when)) = SUBJECTS.iter().find(|(subject, _)| about(subject)) {
        return format!("applies {when} in {project}");
    }
    if let Some(span) = text.split('`').nth(1).filter(|s| !s.trim().is_empty()) {
        return format!("applies when running `{}` in {project}", span.trim());
    }
    format!("applies to all work in {project}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_requested_thing_does_and_emphasis_lay_down_no_rule() {
        let asked = "whippet: add a route handler at app/api/litters/route.ts that returns upcoming litters across \
                     all kennels as JSON.";
        assert!(super::rules_in(asked).is_empty());
        // (A rule said beside the request stays one.)
        let ruled = "Add an endpoint that returns the orders, and always log with structlog.";
        assert!(!super::rules_in(ruled).is_empty());
        let every = "Add a --json flag and use snake_case keys in every command that prints JSON.";
        assert!(!super::rules_in(every).is_empty());
        for nag in ["I don't want to say it a third time.", "Don't make me repeat this again!"] {
            assert!(super::rules_in(nag).is_empty(), "{nag}");
        }
        // A rule that only sounds like one of them, and a rule behind "make sure that", stay.
        assert!(!super::rules_in("We don't want to write raw SQL in handlers, ever.").is_empty());
        assert!(!is_described_request("Make sure that tests never hit the network, in every package."));
    }

    #[test]
    fn a_bound_of_what_a_request_makes_is_no_rule() {
        let asked = "add POST /api/sessions/:id/extend that pushes the expiry out by 30 minutes, but never more than 8 hours after the session was created; 404 for unknown sessions.";
        assert!(rules_in(asked).is_empty(), "{:?}", rules_in(asked));
        // (Said as a rule of its own, a bound is one.)
        assert_eq!(
            rules_in("Never more than three retries in any job, ever."),
            ["Never more than three retries in any job, ever."]
        );
        // ("no more sleep() calls" is no bound, whatever the request beside it.)
        assert_eq!(
            rules_in("Fix the login test, and no more sleep() calls in any test, ever."),
            ["No more sleep() calls in any test, ever."]
        );
    }
    #[test]
    fn a_bare_prohibition_keeps_hands_off_the_task_and_one_with_its_reason_is_a_rule() {
        // (A bare one still says something of its own: it does not open a new task.)
        assert!(is_lasting("Don't add tenacity."));
        for bare in [
            "Don't add tenacity.",
            "don't touch the fixtures for now",
            "Don't chmod the socket, no.",
            "and don't change docker-compose.yml either",
            "Don't delete any customer rows.",
        ] {
            assert!(rules_in(bare).is_empty(), "{bare}");
        }
        for rule in [
            "Don't edit man/ directly, it's generated: the roxygen comments in R/ are the source.",
            "Don't call plain `mvn` in this repo, ever — always the wrapper.",
            "Never use npm.",
            "Don't add runtime dependencies because the binary must stay small.",
            "Don't push to main directly, open a PR from a branch every time.",
            "Style here is the tidyverse one with the native pipe `|>`, never `%>%`.",
        ] {
            assert_eq!(rules_in(rule), vec![rule.to_string()], "{rule}");
        }
    }

    #[test]
    fn a_team_rule_a_prohibition_after_the_way_and_a_rule_said_again_are_rules() {
        for rule in [
            "pls no field injection with @Autowired, in capri we do constructor injection only, is team rule since the spring 6 upgrade.",
            "declare(strict_types=1) at the top of every php file, always — that's non negotiable here.",
            "and please: async all the way in elba, never block with .Result or .Wait() — we had deadlocks from that.",
            "pls keep named exports only, we dont do default exports anywhere in lanai (tree shaking + the barrel file).",
            "as I said last time, amounts are integer cents everywhere, so the sum stays an integer.",
        ] {
            assert_eq!(rules_in(rule), vec![rule.to_string()], "{rule}");
        }
        // Ordinary sentences of a task that share a word with these say no rule.
        for task in [
            "Docker says no space left on device.",
            "Mypy says all good now.",
            "Update the copyright year at the top of every file.",
            "As I said before, the login form crashes when the email is empty.",
            "The old helper is dead, we don't call it anywhere anymore.",
            "The style here is broken on mobile.",
            "Add the team policy link to the README.",
            "The Friday deadline is non-negotiable.",
        ] {
            assert!(rules_in(task).is_empty(), "{task}");
        }
        // A pointer back with nothing after it, and a mind changed, say no rule.
        assert!(rules_in("as i told you last time").is_empty());
        assert!(rules_in("I ran it twice, never got any output").is_empty());
        assert!(rules_in("Fix the header of every file in this PR.").is_empty());
    }

    #[test]
    fn a_rule_the_lead_wants_or_the_user_asks_to_keep_to_is_a_rule() {
        let rule =
            "the team lead wants no `:refer :all` anywhere (use `:as` aliases), so please keep to that in new code.";
        assert_eq!(rules_in(rule), vec![rule.to_string()]);
        let rule = "the team lead wants all migrations reversible — every deploy script needs a real revert.";
        assert_eq!(rules_in(rule), vec![rule.to_string()]);
        let rule = "in this repo we put type restrictions on all public defs, the args and the return type both, pls keep it like that";
        assert_eq!(rules_in(rule), vec![rule.to_string()]);
        let rule = "btw in maitake we never use io:format for logging, only the logger macros, pls keep that";
        assert_eq!(rules_in(rule), vec![rule.to_string()]);
        // A deadline is a thing of the week; "keep it" alone keeps the thing at hand.
        assert!(rules_in("Hana wants all tests green by Friday.").is_empty());
        assert!(rules_in("Fix the parser's off-by-one, keep it like that.").is_empty());
        assert!(rules_in("the lead wants this PR merged today").is_empty());
    }

    #[test]
    fn what_all_of_a_kind_always_does_is_lasting_and_a_trouble_is_not() {
        assert!(is_lasting("Our imports always go through the import map in deno.json"));
        assert!(is_lasting("Every handler never panics; errors go back as 500s."));
        assert!(is_lasting("and all public functions always get a docstring"));
        assert!(!is_lasting("Our builds always fail on the ARM runner"));
        assert!(is_lasting("env-specific changes always go in a patch under overlays/<env>/"));
        assert!(is_lasting("close, but: PRs here always start as drafts"));
        assert!(!is_lasting("This always happens after a rebase"));
        assert!(!is_lasting("Deploys always take forever on Fridays"));
        assert!(!is_lasting("Users always complain about the export"));
        assert!(!is_lasting("Our workers always panic on boot"));
    }

    #[test]
    fn praise_of_the_agents_habits_and_how_the_data_is_are_no_rules() {
        assert!(!is_lasting("great, you always pick sensible names for the Multi steps 👍"));
        assert!(!is_lasting("nice — you always put the doctest example in, I like that."));
        assert!(!is_lasting("great, we're on node 22 so fine."));
        assert!(!is_lasting("ok, we're using postgres 16, so that's fine"));
        assert!(is_lasting("we're on 3.12"));
        assert!(is_lasting("we're on node 22, so always use the built-in fetch"));
        assert!(!is_lasting("Supplier refs are never longer than 255 in practice."));
        assert!(!is_lasting("Two things broke: every new zsh says compdef isn't found."));
        // (Said of what to do, it stays a rule.)
        assert!(is_lasting("You always need to run `make gen` before the tests."));
        assert!(is_lasting("Supplier refs are never longer than 255."));
    }

    #[test]
    fn every_new_one_and_the_way_we_do_it_everywhere_are_rules() {
        let rules = |s: &str| rules_in(s).len();
        assert_eq!(
            rules(
                "Please use keyword arguments for anything new with more than two parameters; positional soup is how this bug happened."
            ),
            1
        );
        assert_eq!(
            rules(
                "Do it the way we do multi-step writes everywhere: `Ecto.Multi`, not nested `Repo.transaction` blocks."
            ),
            1
        );
        assert_eq!(
            rules("While you're in there: new error types go in `src/error.rs` as `thiserror` enums, not `anyhow`."),
            1
        );
        assert_eq!(rules("Do it the way we did it yesterday."), 0);
    }

    #[test]
    fn a_preference_says_when_it_applies() {
        assert_eq!(
            when_it_applies("We use pnpm, not npm.", "webshop"),
            "applies whenever `npm` would be used in webshop"
        );
        assert_eq!(
            when_it_applies("Never edit a migration that was released.", "shiftdb"),
            "applies when writing or changing migrations in shiftdb"
        );
        assert_eq!(
            when_it_applies("Build the firmware with `make build BOARD=rev2`.", "firmware"),
            "applies when running `make build BOARD=rev2` in firmware"
        );
        assert_eq!(when_it_applies("Keep the changelog short.", "app"), "applies to all work in app");
    }

    #[test]
    fn requests_and_task_scoped_sentences_are_not_rules() {
        for text in [
            "Please add a `--verbose` flag to the export command.",
            "Don't touch the code, just tell me why.",
            "Do it by hand this time, one file at a time.",
            "Use the staging db for this one.",
            "No globals here.",
            "Please run the tests",
            "Make sure the tests pass.",
            "Always do it this way for now.",
            "By the way, can you also fix the footer?",
            "Btw, fix it here too.",
            "This project is broken since the merge.",
            "This app uses too much memory on startup.",
            "Test it with the staging data for now, not prod.",
            "Format it with black, not ruff.",
            "This test never passes on my machine.",
            "This page never loads after login.",
            "This service always returns 500 for empty carts.",
            "Our CI never caches the cargo registry, that's why it takes 20 min.",
            "Don't bump the version, this just changed a comment.",
            "Don't open the PR yet, I want to read it through first.",
            "Our repo uses Webpack 4, which is why the build is slow.",
            "This project is on Node 16 and the CI image is too old.",
            "Thanks for testing, not quite there yet — the footer still overlaps.",
            "Nver mind, it works.",
            "Please bump the MSRV for this crate to 1.80.",
            "Please bump the MSRV for this crate to 1.80, and update the CI matrix too.",
            "Can you add a CHANGELOG entry in this repo for the fix?",
            "We dropped the connection every time the server restarted.",
            "Add request validation with zod: count 1..500, observedAt ISO datetime not in the future.",
            "I keep shipping broken quoting.",
            "Run the linter before you hand it back.",
            "topaz: add an `archived_at` timestamp to Order and hide archived orders by default.",
            "What does `set -euo pipefail` actually do? I keep copy-pasting it",
            "The /orders endpoint returns a 500 too, same as the others.",
            "Main is red and will stay that way until the upstream fix is released.",
            "Each time I ran the suite it hung on the socket test.",
        ] {
            assert!(rules_in(text).is_empty(), "{text:?}: {:?}", rules_in(text));
        }
    }

    #[test]
    fn lasting_rules_are_kept_whole() {
        for text in [
            "We use pnpm, not npm.",
            "From now on, build with `make build BOARD=rev2`; rev1 boards are retired.",
            "Please use yarn for everything in this repo.",
            "Prefer `serde_json::to_writer` over building strings by hand.",
            "Don't touch the generated files under gen/.",
            "Always use `just test` in CI.",
            "Our convention is kebab-case file names.",
            "Every package change needs a changeset.",
            "usual rule: `cargo clippy --all-targets -- -D warnings` has to be clean before you hand anything back.",
            "validation always goes in a FormRequest class here, never `$request->validate()` inline in the controller.",
            "errors always go in src/error.rs here, never inline.",
            "Tests: always run `pytest -q` before you push.",
            "Keep all Python in here formatted with black.",
            "We use `deno fmt` and `deno lint` here, never prettier or eslint.",
            "The house style here is that every exported C symbol is snake_case with the `cinder_` prefix.",
            "Don't run terraform apply, ever, from here.",
            "By the way, `npm run lint` here is eslint with --max-warnings 0, so any warning fails CI.",
            "Same drill as always: vet plus staticcheck before you commit, please.",
            "Again: no pandas in anything you write, it's polars now.",
            "And a rule for this codebase: API responses always render timestamps as ISO 8601 in UTC with a Z suffix.",
            "In log lines we write timestamps as Unix epoch milliseconds, not ISO strings.",
            "And `anyhow` is only allowed in the binary crate, crates/saltmarsh, nowhere else.",
            "pls always run `mix format` and `mix credo --strict` before say done, CI is very strict with this",
            "This project is pdm only: run things with `pdm run`, add deps with `pdm add`.",
            "Our repo uses pnpm workspaces, not npm.",
            "format with nph, not nimpretty — nimpretty mangles our macros.",
            "nixfmt-rfc-style for formatting, not alejandra.",
            "alwyas use FQCN for modules (ansible.builtin.copy, not copy).",
            "This firmware never allocates: no `alloc`, no Box/Vec/String — heapless only.",
            "in this plugin user-facing messages always go through vim.notify with title 'knapweed', never print() or nvim_echo",
            "tests run with `bun test` — we dropped vitest last month, don't bring it back.",
            "Please run clippy with `-D warnings` in this repo before pushing.",
            "Please add a changeset for every package you touch in this repo.",
            "Whenever you touch a module, run `terraform fmt -recursive` and `tflint`.",
            "Rebuild the index every time the schema changes.",
            "FescueKit is dependency-free and stays that way, so no swift-crypto or AsyncHTTPClient.",
            "In the future, run `cargo deny check` before adding a crate.",
            "We keep everything in UTC, in the database and in the logs.",
            "Stow it --no-folding, same as everything else.",
            "Install dependencies with pnpm in this repo, not npm.",
            "Release via the GitHub workflow in this repo, never from a laptop.",
            "Add a `Signed-off-by` trailer to commits in this repo.",
            "Bump the patch version each time a PR is merged.",
            "Update CHANGELOG.md every time a feature is added.",
            "Run `pnpm codegen` every time you need new GraphQL types.",
            "I keep string constants in `src/consts.ts`, please do the same.",
            "Always run shellcheck before committing, I keep shipping broken quoting.",
            "Please use `jq -S` for JSON diffs in the future.",
        ] {
            assert_eq!(rules_in(text), [text], "{text:?}");
        }
    }

    #[test]
    fn hands_off_this_task_and_a_place_that_is_no_convention_are_no_rules() {
        assert!(rules_in("Don't fix anything, I want to look at it myself.").is_empty());
        assert!(rules_in("Last night's backup didn't run, or at least nothing new shows up in the repo.").is_empty());
        assert!(!rules_in("Don't use console.log in this repo.").is_empty());
    }

    #[test]
    fn how_often_something_happens_is_no_rule() {
        let report =
            "GET /v1/routes comes back in a different order on every call and the mobile team wants it sorted.";
        assert!(rules_in(report).is_empty());
        assert!(!rules_in("Run the linter on every commit.").is_empty());
    }

    #[test]
    fn asides_conditions_and_the_ways_never_taken_are_rules() {
        for rule in [
            "(we don't pip install anything into the env here, deps go in pyproject.toml and hatch builds the envs)",
            "Use java.time throughout; no java.util.Date or Calendar anywhere in morganite.",
            "(anything under packages/ui is named exports only, no default exports; the barrel re-exports by name.)",
            "And when you touch values.yaml, bump the chart version in Chart.yaml too (patch is fine).",
            "When you add a migration here, also run `dbmate dump` so db/schema.sql matches, CI compares it.",
            "For new code in labradorite: `with` chains rather than nested case.",
            "in tourmaline errors are compared with errors.Is / errors.As, never by matching on err.Error() strings.",
            "Nix files in chrysoprase are formatted with `nix fmt` (nixfmt-rfc-style), not alejandra.",
            "Tests sit next to the source as `*.test.ts` in hematite, no `__tests__` folders.",
            "In modules/, every option gets a `type` and a `description`, no bare mkOption {}.",
        ] {
            assert_eq!(rules_in(rule), [rule], "{rule}");
        }
        for task in [
            "When you're done, also run the tests.",
            "When you touch the handler, log the request id.",
            "It failed twice, never on CI though.",
            "We don't need the retry here.",
            "The tests in CI are failing with a timeout.",
            "Logs in staging are written by the old agent.",
            "In src/parser.rs, all the tests fail since your change.",
            "Everything in dist/ is stale.",
            "Ran it again: no errors at all.",
            "The migrations are generated with the wrong timestamps.",
            "Check coverage for new code paths in parser.rs.",
        ] {
            assert!(rules_in(task).is_empty(), "{task}");
        }
    }

    #[test]
    fn rules_said_other_ways_are_rules() {
        for rule in [
            "tests in munit like the rest of wigeon — we don't use scalatest here, never pull it in.",
            "Every new PHP file starts with `declare(strict_types=1);`, keep it that way.",
            "crystal tool format before committing pls, always.",
            "and please, when you touch .tex files: one sentence per line, my supervisor diffs it like that",
            "for the future: run the tests with `--flag -fcheck=bounds` as well, that's how CI runs them",
            "SharedPreferences is banned here since the migration.",
            "In goldenrod worker tests always go through Oban.Testing's perform_job/2, never call perform/1 directly.",
            "All user-facing output goes through the rich console (marshwort.console), never bare print() — keep to that.",
            "I prefer central package management here: versions only go in Directory.Packages.props.",
        ] {
            assert_eq!(rules_in(rule), vec![rule.to_string()], "{rule}");
        }
    }

    #[test]
    fn another_place_a_while_or_the_thing_at_hand_is_no_rule() {
        for said in [
            "at my old job we always ran vitest with --no-threads, no idea why, don't bother.",
            "fyi in the infra-bootstrap repo we never use modules from the registry, everything is vendored there, but \
             here registry modules are fine.",
            "Always use the sandbox gateway for this; I don't want real refunds while we test today.",
            "Heads-up: don't branch off Marta's feat/rate-limit, she's mid-rebase this week; branch from main.",
            "Then prepare 0.8.3: always bump the patch version for this release, it's only a bugfix.",
            "At my old job we always used Scrivener for pagination, but don't pull it in here.",
        ] {
            assert!(rules_in(said).is_empty(), "{said}");
        }
        // The repo at hand, a rule that stays, all of the place done one way.
        for said in [
            "Always run the linter for this repo.",
            "A rule that stays: this repo is flakes only, no nix-env -i, no channels.",
            "Everything here is deployed with `stow --dotfiles -t ~ <pkg>`; never copy anything into ~ by hand.",
            "We wrap errors with fmt.Errorf in this codebase, pkg/errors is banned, so don't pull it in.",
        ] {
            assert_eq!(rules_in(said), [said]);
        }
    }

    #[test]
    fn the_speakers_habits_and_a_requests_reasons_are_no_rules() {
        for said in [
            "ha, I always mix them up",
            "always mix them up",
            "Look in the handbook first for anything about this repo.",
            "Make orders.status NOT NULL please, we never write null there anyway",
            "When you fix it, tell me.",
            "Show me the diff before committing.",
            "The flaky test fails on CI, always.",
            "When you update the docs, mention the new flag.",
            "Hmm, the upload is forbidden, my token probably expired.",
            "New task: add a NetworkPolicy to charts/ingest (off by default), with a helm-unittest test.",
            "CI builds with --pedantic so warnings are errors, and I don't want surprises there.",
            "The worker picks up the job, never finishes it.",
            "I ran it twice, never saw the crash.",
            "I never got this error here before.",
            "We never hit this branch here in practice.",
            "Build it as usual.",
        ] {
            assert!(rules_in(said).is_empty(), "{said}");
        }
        // The way that follows "the way we always do" is the standing one.
        let said = "Build it the way we always do: `stack build --fast --pedantic`.";
        assert_eq!(rules_in(said), [said]);
        let said = "Run them as usual: `mix test --warnings-as-errors`.";
        assert_eq!(rules_in(said), [said]);
    }

    #[test]
    fn an_aside_of_a_request_is_no_rule() {
        assert!(rules_in("Add a PodDisruptionBudget to the `ingest` chart (minAvailable 1 by default).").is_empty());
        assert!(rules_in("Add per-key rate limiting to the API, 60 requests/min per API key by default.").is_empty());
        assert!(!rules_in("Use pnpm by default.").is_empty());
        for rule in [
            "Build the docs with -W by default.",
            "Create feature branches off `develop` by default.",
            "Anyway, from now on always run the linter before committing.",
            "We always use pnpm anyway.",
            "Never forget to run migrations before deploying.",
        ] {
            assert_eq!(rules_in(rule), vec![rule.to_string()], "{rule}");
        }
        assert_eq!(rules_in("By default, build the docs with -W."), ["By default, build the docs with -W."]);
    }

    #[test]
    fn a_rule_inside_a_request_is_kept_alone_and_two_rules_split() {
        assert_eq!(
            rules_in("Fix the importer, and keep all Python formatted with black."),
            ["Keep all Python formatted with black."]
        );
        // Rules said side by side are one rule and its other half, kept as said.
        for rules in [
            "Always use pnpm, and never commit the lockfile by hand.",
            "Always use pnpm and never run npm install.",
            "In this project we always wrap errors with fmt.Errorf(\"...: %w\", err); never pkg/errors.",
            "We never edit a migration that's already been applied anywhere; always add a new one.",
        ] {
            assert_eq!(rules_in(rules), [rules]);
        }
        // A request before them is no part of them.
        assert_eq!(
            rules_in("Fix the importer; we always use pnpm and never run npm install."),
            ["We always use pnpm and never run npm install."]
        );
        assert!(rules_in("Without `--run` vitest sits in watch mode and never exits.").is_empty());
    }

    #[test]
    fn openers_are_stripped_from_the_fact() {
        assert_eq!(fact_of("Remember this for later: the API lives on port 8443."), "The API lives on port 8443.");
        assert_eq!(fact_of("Please remember that the API lives on port 8443."), "The API lives on port 8443.");
        assert_eq!(fact_of("Thanks, and remember that deploys need the VPN."), "Deploys need the VPN.");
        assert_eq!(fact_of("We use uv, not pip."), "We use uv, not pip.");
        assert_eq!(fact_of("Reminder: base/ stays environment-neutral."), "Base/ stays environment-neutral.");
        assert_eq!(
            fact_of("Reminder of how this repo works: everything is deployed with GNU stow."),
            "Everything is deployed with GNU stow."
        );
        assert_eq!(fact_of("Remember that."), "Remember that.");
        assert_eq!(fact_of("And the house style reminder: no testify in grayling."), "No testify in grayling.");
        assert_eq!(
            fact_of("one more thing and keep this in mind in general: run `buildifier -r .` on a BUILD change"),
            "Run `buildifier -r .` on a BUILD change"
        );
        assert_eq!(
            fact_of("Remember to run `make gen` after a schema change."),
            "Run `make gen` after a schema change."
        );
    }

    #[test]
    fn a_rule_said_as_a_standing_one_or_the_projects_standard_is_kept() {
        assert_eq!(
            rules_in("Oh, and a standing one: every public declaration in Sources/Kit gets a /// doc comment."),
            ["Oh, and a standing one: every public declaration in Sources/Kit gets a /// doc comment."]
        );
        assert_eq!(
            rules_in("Write the assertions with AssertJ — that's the project standard, not Hamcrest."),
            ["Write the assertions with AssertJ — that's the project standard, not Hamcrest."]
        );
        assert!(is_lasting("cinquefoil uses constructor injection only, with final fields."));
        assert!(is_lasting("ledger only uses jOOQ."));
        assert!(!is_lasting("The importer only uses the first sheet."), "a fault of the thing at hand");
        assert!(!is_lasting("It uses one thread only."), "the thing at hand");
        assert!(is_lasting("New UI in sidra is Jetpack Compose only, no new XML layouts."));
        assert!(is_lasting("Tests in sidra are JUnit 5 only."));
        assert!(!is_lasting("The test in CI is flaky only sometimes."));
        assert!(!is_lasting("The failure in CI is on Linux only."), "the thing at hand");
        assert!(!is_lasting("The crash in staging is Android only."), "the thing at hand");
        assert!(!is_lasting("The timeout in CI is 30 seconds only."), "the thing at hand");
        assert!(!is_lasting("That's the project I meant."));
        assert!(!is_lasting("Uploads get rejected. It's the policy engine that rejects them, I think."));
        assert!(!is_lasting("This is the rule engine that crashes on startup."));
    }

    #[test]
    fn a_deliberate_setting_and_a_kept_standard_are_rules() {
        let sentence = "Keep it C11 without GNU extensions; CMAKE_C_EXTENSIONS stays OFF, that's deliberate.";
        assert_eq!(rules_in(sentence), [sentence]);
        assert!(rules_in("Keep it short, that's deliberate.").is_empty());
        assert!(rules_in("I never remember the argument order.").is_empty());
    }

    #[test]
    fn a_change_before_a_trouble_is_no_rule() {
        assert!(!is_lasting("The build on my machine broke after I switched to rootless Docker."));
        assert!(!is_lasting("Since we moved to Postgres 16 the dump fails."));
        assert!(is_lasting("We switched to pnpm last year."));
        assert!(is_lasting("We've moved beryl to Swift Testing: `import Testing` and `#expect`."));
        assert!(!is_lasting("Since we've moved the app over to Postgres 16 the dump fails."));
        assert!(is_lasting("right, we moved everything to Swift Testing in October, that note is stale."));
        assert!(!is_lasting("We moved the handler to the api module."));
        assert!(is_lasting("And yes, always run `swift format lint --strict` before you call something done here."));
        assert!(!is_task_scoped(
            "And yes, always run `swift format lint --strict` before you call something done here."
        ));
        assert!(is_task_scoped("Just put the helper here."));
        for rule in [
            "Our tests assert with AssertJ only (assertThat(...)); please no Hamcrest matchers or plain JUnit assertEquals.",
            "Every public symbol in spaulder needs a /// doc comment, no exceptions.",
            "And just so it's said: errors get wrapped with fmt.Errorf and %w, we don't use pkg/errors anywhere.",
            "Scripts here are strict POSIX sh, no bashisms: they run under dash on the routers.",
        ] {
            assert_eq!(rules_in(rule), [rule]);
        }
        assert!(is_task_scoped("No, leave the machine alone, I'll sort the driver out myself."));
        assert!(!is_lasting("Our tests are failing on main."));
        let rule = "In this repo any write that touches more than one table goes through `Ecto.Multi`, not \
                    `Repo.transaction(fn -> ... end)`.";
        assert_eq!(rules_in(rule), [rule]);
        assert!(is_task_scoped("Write that test first."));
        // A pointer to another thing of the task; a rule about another thing is still a rule.
        assert!(is_task_scoped("No, the other file."));
        assert!(is_task_scoped("Nope — that other handler!"));
        assert!(!is_task_scoped("No, the other registry is the one we always publish to."));
    }

    #[test]
    fn a_rule_after_a_dash_keeps_where_it_says_things_go_instead() {
        let sentence = "Fix it — and whatever you do, don't put credentials in the repo's gradle.properties; \
                        they belong in ~/.gradle/gradle.properties.";
        assert_eq!(
            rules_in(sentence),
            ["Whatever you do, don't put credentials in the repo's gradle.properties; they belong in \
                 ~/.gradle/gradle.properties."]
        );
        // (A statement that goes on about something else is not the rule's.)
        assert_eq!(
            rules_in("Fix the parser — and never commit generated files; the parser is slow anyway."),
            ["Never commit generated files."]
        );
    }

    #[test]
    fn rules_said_in_other_words_are_rules() {
        for rule in [
            "You know the drill: hatch fmt before you hand anything back.",
            "Same ground rules as ever: error types in the library crates are thiserror, anyhow only in the binary.",
            "And please, for the hundredth time: every .rb file in cambric starts with `# frozen_string_literal: true`.",
            "Generally speaking, any ALTER on the big tables here goes in with `LOCK=NONE` spelled out.",
            "PDBs in this chart use maxUnavailable: 1, full stop.",
            "And no new runtime gems, this gem is stdlib-only at runtime.",
            "And keep -Werror on, never silence a warning with a pragma or -Wno-*.",
            "The package must not import magrittr: base pipe `|>` only, in package code and in tests.",
            "splugen has no dplyr dependency and it stays that way: base R only in package code.",
            "And our spec rule: FactoryBot `build_stubbed` wherever the spec doesn't need the database.",
            "Going forward: wherever Bun has its own API, use it.",
            "This one is a standing thing for the repo: every change under charts/x bumps the patch `version:`.",
        ] {
            assert_eq!(rules_in(rule), [rule], "{rule}");
        }
        // A label alone says nothing; the rule it names is the whole sentence.
        let rule = "House rule, and it applies to every change here: nothing is done until `cargo clippy` is clean.";
        assert_eq!(rules_in(rule), [rule]);
    }

    #[test]
    fn praise_a_complaint_and_a_pointing_back_are_no_rules() {
        for said in [
            "I love that you always write the failing test first.",
            "love that you always show me the EXPLAIN.",
            "home-manager moving under me breaks my laptop config every time.",
            "that's exactly what I meant: typed everything, no exceptions",
            "Stollen: `formatPrice` in packages/shared prints `€1234.5` for every locale.",
            "In general the approach looks good, thanks.",
            "No new dependencies showed up in the lockfile diff.",
            "The CSV may not import cleanly if it has a BOM.",
            "Our retry policy gives up too early.",
            "Don't fix any other warnings here.",
            "Never mind the lint for this one, no exceptions.",
        ] {
            assert!(rules_in(said).is_empty(), "{said}");
        }
        // (A rule said with "every time" is still one.)
        assert_eq!(rules_in("Run the linter every time, please."), ["Run the linter every time, please."]);
        assert!(is_lasting("If a test fails, rerun it with -v every time."));
        // A short rule after a task is kept; only a bare label is not.
        assert_eq!(rules_in("Fix the importer, and never squash."), ["Never squash."]);
    }
}
