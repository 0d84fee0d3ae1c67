//! Secret redaction: replaces credentials with `[REDACTED:<kind>]`.
//!
//! Runs on normalised transcript text before extraction, again on everything an engine
//! produces, and on notes. One pass of a [`RegexSet`] decides whether a text holds anything
//! that looks like a secret, so the common case (nothing to hide) costs one scan and no copy.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex, RegexSet};

use crate::core::patterns;
use crate::core::session::{Event, EventKind, SessionMeta, Unredacted};

/// One family of secrets and how to find it.
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    /// When set, only this capture group is replaced and the rest of the match is kept
    /// (`Bearer <token>` keeps `Bearer `; `password=<value>` keeps `password=`).
    group: Option<usize>,
    /// Decides, from the whole text and the match, that a match is not a secret after all.
    keep: Option<fn(&str, &Captures) -> bool>,
}

/// The tail of a private key block whose BEGIN line was cut off.
const KEY_TAIL: &str = r"[A-Za-z0-9+/=\s]{32,}-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----";

/// What the rule set searches in place of [`KEY_TAIL`]: its end, which every match of it
/// holds. Led by a class that matches nearly any text and counts to 32, the tail itself
/// would multiply the set's states on every text, and the set would spend its time building
/// them; a hit is confirmed by the rule's own regex, as every hit of the set is.
const KEY_TAIL_IN_SET: &str = r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----";

/// The rules, most specific first: a token that several rules match is named by the first.
const RULES: &[Rule] = &[
    Rule {
        kind: "private_key",
        // Every PEM flavour (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8 with no algorithm word,
        // PGP key blocks). A block cut short (no END line) is redacted to the end of the text.
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*)",
        group: None,
        keep: None,
    },
    Rule {
        kind: "private_key",
        // The tail of a block whose BEGIN line was cut off.
        pattern: KEY_TAIL,
        group: None,
        keep: None,
    },
    Rule { kind: "anthropic", pattern: r"\bsk-ant-[A-Za-z0-9_-]{20,}", group: None, keep: Some(has_no_digit) },
    Rule {
        kind: "openai",
        pattern: r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
        group: None,
        // `sk-learn-compatible-estimator-interface` is prose; real keys are random.
        keep: Some(has_no_digit),
    },
    Rule {
        kind: "github",
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        group: None,
        keep: None,
    },
    Rule { kind: "gitlab", pattern: r"\bglpat-[A-Za-z0-9_-]{20,}", group: None, keep: None },
    Rule {
        kind: "gitlab",
        // Deploy, runner, trigger, CI job, feed, incoming-mail and agent tokens.
        pattern: r"\bgl(?:dt|rt|ptt|cbt|ft|imt|soat|agent)-[A-Za-z0-9_-]{20,}|\bGR1348941[A-Za-z0-9_-]{20,}",
        group: None,
        keep: None,
    },
    Rule {
        kind: "slack",
        // Bot, user, app-level (`xapp-`) and refresh (`xoxe.xoxp-`) tokens, and webhooks.
        pattern: r"\bxox[a-z](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
        group: None,
        keep: None,
    },
    Rule {
        kind: "discord",
        pattern: r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}",
        group: None,
        keep: None,
    },
    Rule {
        kind: "stripe",
        pattern: r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9+/=]{24,}",
        group: None,
        keep: None,
    },
    Rule {
        kind: "google",
        // API keys, OAuth client secrets and OAuth access tokens.
        pattern: r"\bAIza[0-9A-Za-z_-]{35}|\bGOCSPX-[A-Za-z0-9_-]{24,}|\bya29\.[A-Za-z0-9_-]{20,}",
        group: None,
        keep: None,
    },
    Rule { kind: "sendgrid", pattern: r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", group: None, keep: None },
    Rule { kind: "twilio", pattern: r"\bSK[0-9a-fA-F]{32}\b", group: None, keep: None },
    Rule {
        kind: "telegram",
        // `<bot id>:<35 characters>`; a word boundary cannot end it, since it may end in `-`.
        pattern: r"\b([0-9]{5,16}:A[A-Za-z0-9_-]{34})(?:[^A-Za-z0-9_-]|$)",
        group: Some(1),
        keep: None,
    },
    Rule { kind: "digitalocean", pattern: r"\bdo[opr]_v1_[a-f0-9]{64}", group: None, keep: None },
    Rule { kind: "shopify", pattern: r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", group: None, keep: None },
    Rule { kind: "vault", pattern: r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", group: None, keep: None },
    Rule { kind: "age", pattern: r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}", group: None, keep: None },
    Rule { kind: "mailgun", pattern: r"\bkey-[a-f0-9]{32}\b", group: None, keep: None },
    Rule {
        kind: "token",
        // Prefixed tokens of other services: Linear, Postman, Databricks, Doppler, Sentry,
        // PlanetScale, Supabase, Grafana, Docker Hub, Square, Heroku, Atlassian, RubyGems,
        // Pulumi, New Relic, Groq, xAI, Perplexity, Replicate, Notion, Brevo, 1Password,
        // Alibaba, Fly.io, Terraform Cloud.
        pattern: concat!(
            r"\blin_api_[A-Za-z0-9]{40}|\bPMAK-[A-Za-z0-9]{24}-[A-Za-z0-9]{34}|\bdapi[a-f0-9]{32}(?:-[0-9])?\b",
            r"|\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}|\bsntry[su]_[A-Za-z0-9+/=_-]{40,}",
            r"|\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9._=-]{32,}|\bsbp_[a-f0-9]{40}",
            r"|\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|\bdckr_pat_[A-Za-z0-9_-]{27,}",
            r"|\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|\bHRKU-[A-Za-z0-9_-]{30,}|\bATATT3[A-Za-z0-9_=-]{100,}",
            r"|\brubygems_[a-f0-9]{48}|\bpul-[a-f0-9]{40}|\bNR(?:AK|JS|II)-[A-Za-z0-9]{20,}",
            r"|\bgsk_[A-Za-z0-9]{40,}|\bxai-[A-Za-z0-9]{60,}|\bpplx-[A-Za-z0-9]{40,}|\br8_[A-Za-z0-9]{35,}",
            r"|\bntn_[A-Za-z0-9]{40,}|\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}",
            r"|\bLTAI[A-Za-z0-9]{20}\b|\bfo1_[A-Za-z0-9_-]{40,}|\b[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        ),
        group: None,
        keep: None,
    },
    Rule {
        kind: "aws_secret_key",
        // A 40-character key written near its access key id or after the word "secret".
        pattern: r"(?:\b(?:AKIA|ASIA)[A-Z0-9]{16}\b.{0,80}?|(?i:\bsecret(?:[ _-]access)?(?:[ _-]key)?\b)\W{0,4}(?:is\W{1,3})?)\b([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)",
        group: Some(1),
        keep: None,
    },
    Rule {
        kind: "aws_access_key_id",
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        group: None,
        keep: None,
    },
    Rule {
        kind: "aws_secret_key",
        pattern: r#"(?i)aws.{0,24}?(?:secret|sk).{0,24}?["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})\b"#,
        group: Some(1),
        keep: None,
    },
    Rule { kind: "npm", pattern: r"\bnpm_[A-Za-z0-9]{36}\b", group: None, keep: None },
    Rule { kind: "npm", pattern: r"(?i)_authToken\s*=\s*(\S{8,})", group: Some(1), keep: None },
    Rule { kind: "pypi", pattern: r"\bpypi-[A-Za-z0-9_-]{50,}", group: None, keep: None },
    Rule { kind: "huggingface", pattern: r"\bhf_[A-Za-z0-9]{30,}\b", group: None, keep: None },
    Rule {
        kind: "azure",
        pattern: r"(?i)\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/=]{20,})",
        group: Some(1),
        keep: None,
    },
    Rule {
        kind: "azure",
        // The signature of a shared access signature URL (URL-encoded base64).
        pattern: r"(?i)[?&;]sig=([A-Za-z0-9%+/=_-]{20,})",
        group: Some(1),
        keep: None,
    },
    Rule {
        kind: "jwt",
        // A JSON header (`eyJ` is `{"` in base64) and two more parts: a JWT, whatever its
        // payload (a Cachix or Supabase token need not encode JSON there).
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        group: None,
        keep: None,
    },
    Rule {
        kind: "url_credentials",
        // Up to the last `@` before the path, so a password holding `@` is hidden whole.
        // The user may be empty (`redis://:password@host`).
        pattern: r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://([^\s/:@]*:[^\s/]+)@",
        group: Some(1),
        keep: None,
    },
    Rule {
        kind: "bearer",
        pattern: r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)|(?i)\bauthorization:\s*token\s+([A-Za-z0-9._~+/-]{16,})",
        group: Some(1),
        // "bearer authentication/authorization" is prose; tokens hold digits.
        keep: Some(has_no_digit),
    },
    Rule {
        kind: "cli_password",
        // Credentials passed as command-line options: `--password X`, `--token=X`,
        // `curl -u user:X`, `redis-cli -a X`, `mysql -pX` (only a lowercase `-p` joined to its
        // value is a password: `-P` is the port, a bare `-p` asks for it), `sshpass -p X`.
        pattern: r#"(?i)(?:--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|access-token|auth-token)(?:=|\s+)|\b(?:add-)?authtoken\s+|(?:\s-u|--user)\s+[^\s:]+:|\bredis-cli\b[^\n]*?\s-a\s+|\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n]*?\s(?-i:-p)|\bsshpass\s+(?-i:-p)\s*)["']?([^\s"']{3,})"#,
        group: Some(1),
        keep: Some(is_reference),
    },
    Rule {
        kind: "basic_auth",
        pattern: r"(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/]{12,}={0,2})",
        group: Some(1),
        keep: None,
    },
    Rule {
        kind: "secret_assignment",
        // `NAME=value`, `"name": "value"`, `name: value` where the name ends in a word
        // that means a credential. The name must end there, so `token_count` is left alone.
        // Values that are references (`$VAR`, `${…}`, `<…>`) or already redacted are kept.
        pattern: r#"(?i)\b(?:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|credentials?|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|secret[_-]?key|secret[_-]?key[_-]?base|encryption[_-]?key|signing[_-]?key|master[_-]?key|session[_-]?key|app[_-]?key)|(?:[A-Za-z0-9.-]*_)?(?:pass|pwd))["']?\s*[:=]\s*["']?([^\s"'`$<>\[{(),;][^\s"'`<>,;()\[\]]{5,})"#,
        group: Some(1),
        keep: Some(is_code_not_secret),
    },
];

/// True when an assignment's value reads as code rather than a credential: a call
/// (`token = next_token()`), a field path (`key = config.api_key`), or a bare snake_case name.
///
/// An `UPPER_CASE` name (an environment variable, a `.env` line) always holds a value, never
/// code, so only calls and references spare it.
fn is_code_not_secret(text: &str, caps: &Captures) -> bool {
    let (Some(whole), Some(value)) = (caps.get(0), caps.get(1)) else {
        return false;
    };
    let assignment = &text[whole.start()..value.start()];
    let name = assignment.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '=' | '"' | '\''));
    let env_name = name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase());
    let quoted = assignment.ends_with(['"', '\'']);
    let typed = assignment.trim_end().ends_with(':');
    let value = value.as_str();
    let is_ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let called = text[whole.end()..].starts_with('(');
    let field_path = value.contains('.') && value.split('.').all(is_ident);
    // `token = next_token`: a snake_case name.
    let snake_name = value.contains('_') && value.chars().all(|c| c.is_ascii_lowercase() || c == '_');
    // `token: TokenStream`, `session_key: SessionKeyFactory`: a type annotation.
    let bare = value.trim_end_matches(|c: char| !c.is_ascii_alphanumeric() && c != '>');
    let type_name = typed
        && bare.starts_with(|c: char| c.is_ascii_uppercase())
        && bare.chars().all(|c| c.is_ascii_alphabetic() || matches!(c, '<' | '>' | ':'));
    called || field_path || (!env_name && !quoted && (snake_name || type_name))
}

/// True for a match without a digit: random tokens always hold some; words do not.
fn has_no_digit(_text: &str, caps: &Captures) -> bool {
    let secret = caps.iter().skip(1).flatten().next().or_else(|| caps.get(0));
    secret.is_some_and(|m| !m.as_str().bytes().any(|b| b.is_ascii_digit()))
}

/// True for a value that names a variable instead of holding a secret (`$TOKEN`, `${X}`).
fn is_reference(_text: &str, caps: &Captures) -> bool {
    caps.get(1).is_some_and(|m| m.as_str().starts_with(['$', '<', '{']))
}

/// The start of a secret that may go on past a line break: a token prefix, a credential
/// name and its `=`/`:`, a password option, an authorisation scheme or a URL, reaching the
/// end of its line, with the next line starting with a character a secret may hold. A
/// transcript breaks a long token where a terminal or a model wrapped it; both halves must
/// go, not only the one the rules still recognise.
/// The prefixes that start a token of a known kind (one pattern, for `concat!`).
macro_rules! token_prefixes {
    () => {
        concat!(
            r"(?:sk-|[sr]k_(?:live|test)_|whsec_|gh[pousr]_|github_pat_|gl[a-z]{2,5}-|GR1348941|xox[a-z]|xapp-|AKIA",
            r"|ASIA|AIza|GOCSPX-|ya29\.|npm_|pypi-|hf_|eyJ|SG\.|SK[0-9a-fA-F]{4}|[0-9]{5,16}:A|do[opr]_v1_",
            r"|shp(?:at|ca|pa|ss)_|hv[sbr]\.|AGE-SECRET-KEY-|key-[0-9a-f]{4}|lin_api_|PMAK-|dapi[0-9a-f]{4}|dp\.",
            r"|sntry[su]_|pscale_|sbp_|glc_|glsa_|dckr_pat_|sq0|HRKU-|ATATT|rubygems_|pul-|NR(?:AK|JS|II)-|gsk_",
            r"|xai-|pplx-|r8_|ntn_|xkeysib-|ops_|LTAI|fo1_)",
        )
    };
}

const SPLIT_HEAD: &str = concat!(
    r"(?:",
    r"\b",
    token_prefixes!(),
    r#"|(?i:[A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?|sig))["']?[ \t]*[:=][ \t]*["']?[^\s"'`$<>\[{(),;]"#,
    r"|(?i:secret)[ \t]+(?:is[ \t]+)?[^\s\[]",
    r#"|(?i:--[a-z-]*(?:password|passwd|pass|token|key|secret)(?:=|[ \t]+)|[ \t]-[pua][ \t]*)["']?[^\s"'$\[]"#,
    r"|(?i:bearer|basic|token)[ \t]+[^\s\[]",
    r"|\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://[^\s\[]",
    r")\S*\r?\n[A-Za-z0-9_+/=.%-]",
);

struct CompiledRule {
    kind: &'static str,
    re: Regex,
    group: Option<usize>,
    keep: Option<fn(&str, &Captures) -> bool>,
}

struct Compiled {
    /// The rules, then [`SPLIT_HEAD`] (at index `rules.len()`).
    set: RegexSet,
    rules: Vec<CompiledRule>,
    split: Regex,
}

impl Compiled {
    fn split_index(&self) -> usize {
        self.rules.len()
    }
}

/// A word that starts like a token of a known kind and goes on like one: a piece of a
/// secret the rules no longer recognise (cut short, or the first half of a broken one).
static TOKEN_PIECE: LazyLock<Regex> =
    LazyLock::new(|| patterns::regex(concat!(r"^", token_prefixes!(), r"[A-Za-z0-9_+/=.-]{6,}$")));

/// True for a word that looks like a piece of a token (see [`TOKEN_PIECE`]): it starts with
/// a known prefix and holds a digit.
pub(crate) fn looks_like_token(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_digit()) && TOKEN_PIECE.is_match(word)
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let in_set = |r: &Rule| if r.pattern == KEY_TAIL { KEY_TAIL_IN_SET } else { r.pattern };
    let set = patterns::regex_set(RULES.iter().map(in_set).chain([SPLIT_HEAD]));
    let rules = RULES
        .iter()
        .map(|r| CompiledRule { kind: r.kind, re: patterns::regex(r.pattern), group: r.group, keep: r.keep })
        .collect();
    Compiled { set, rules, split: patterns::regex(SPLIT_HEAD) }
});

/// A stretch of text that holds a secret of `kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    range: std::ops::Range<usize>,
    kind: &'static str,
}

/// Replace every secret in `text` with `[REDACTED:<kind>]`. Borrows when there is none.
///
/// Besides what the rules match in the text as it is, this hides secrets that only show
/// once JSON escapes are read (`\u0067hp_…`, `\"password\": \"…\"`, a token after an
/// escaped `\n`), keeping the escaped text's shape, and both halves of a secret broken
/// across two lines.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    let Cow::Owned(mut out) = redact_once(text) else {
        return Cow::Borrowed(text);
    };
    // A marker can open a word boundary that the secret's neighbour lacked (`…abcmysql -pX`
    // becomes `[REDACTED:…]mysql -pX`): redact again until nothing changes, which takes
    // one more pass when it happens at all.
    for _ in 0..3 {
        match redact_once(&out) {
            Cow::Owned(again) => out = again,
            Cow::Borrowed(_) => break,
        }
    }
    Cow::Owned(out)
}

fn redact_once(text: &str) -> Cow<'_, str> {
    let compiled = &*COMPILED;
    let mut hits = compiled.set.matches(text);
    let escaped = has_escapes(text);
    if !hits.matched_any() && !escaped {
        return Cow::Borrowed(text);
    }
    let mut spans = Vec::new();
    if escaped {
        escaped_spans(text, &mut spans);
    }
    if hits.matched(compiled.split_index()) {
        split_spans(text, &mut spans);
    }
    let mut out = Cow::Borrowed(text);
    if !spans.is_empty() {
        out = Cow::Owned(replace_spans(text, spans));
        hits = compiled.set.matches(&out);
    }
    for index in hits.iter().filter(|&i| i < compiled.split_index()) {
        if let Cow::Owned(s) = replace_rule(&out, &compiled.rules[index]) {
            out = Cow::Owned(s);
        }
    }
    out
}

/// True when `text` holds a JSON escape that could hide a secret or the edge of one. Most
/// texts hold no backslash at all, and this is one `memchr` over them.
fn has_escapes(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\\', bytes).any(|i| bytes.get(i + 1).is_some_and(|b| b"\"\\/bfnrtu".contains(b)))
}

/// Text with its JSON escapes read, and where each of its bytes came from.
struct Decoded {
    text: String,
    /// For each byte of `text`, the offset in the original of what it was read from; one more
    /// entry holds the original's length.
    from: Vec<usize>,
}

impl Decoded {
    /// The original bytes a range of the decoded text was read from.
    fn original(&self, range: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.from[range.start]..self.from[range.end]
    }
}

/// Read the JSON escapes in `text` (`\n`, `\"`, `\u0067`, surrogate pairs). Anything that is
/// not a valid escape is kept as it is.
fn decode_escapes(text: &str) -> Decoded {
    let bytes = text.as_bytes();
    let mut out = Decoded { text: String::with_capacity(text.len()), from: Vec::with_capacity(text.len() + 1) };
    let mut i = 0;
    while i < bytes.len() {
        match escape_at(text, i) {
            Some((c, used)) => {
                out.text.push(c);
                out.from.extend(std::iter::repeat_n(i, c.len_utf8()));
                i += used;
            }
            None => {
                // `i` is a char boundary: every step moves by whole chars or whole escapes.
                let c = text[i..].chars().next().unwrap_or('\0');
                out.text.push(c);
                out.from.extend(i..i + c.len_utf8());
                i += c.len_utf8();
            }
        }
    }
    out.from.push(bytes.len());
    out
}

/// The character the escape at `at` stands for and its length, if one starts there.
fn escape_at(text: &str, at: usize) -> Option<(char, usize)> {
    let bytes = text.as_bytes();
    if bytes[at] != b'\\' {
        return None;
    }
    let simple = match bytes.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return unicode_escape_at(text, at),
        _ => return None,
    };
    Some((simple, 2))
}

/// The character of a `\uXXXX` escape (or a pair of them for a surrogate pair) at `at`.
fn unicode_escape_at(text: &str, at: usize) -> Option<(char, usize)> {
    let unit = |from: usize| -> Option<u32> {
        let digits = text.get(from + 2..from + 6)?;
        (text.as_bytes()[from + 1] == b'u' && digits.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let first = unit(at)?;
    if (0xD800..0xDC00).contains(&first) {
        let second = text.as_bytes().get(at + 6).filter(|&&b| b == b'\\').and_then(|_| unit(at + 6))?;
        if !(0xDC00..0xE000).contains(&second) {
            return None;
        }
        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return char::from_u32(code).map(|c| (c, 12));
    }
    char::from_u32(first).map(|c| (c, 6))
}

/// How many levels of escaping are read: JSON in a JSON string (a Codex `function_call`'s
/// arguments) holding a tool's JSON output is three.
const ESCAPE_LEVELS: usize = 3;

/// The secrets of `text` that only show once its JSON escapes are read, as ranges of `text`.
fn escaped_spans(text: &str, spans: &mut Vec<Span>) {
    let mut levels = vec![decode_escapes(text)];
    while levels.len() < ESCAPE_LEVELS {
        let inner = &levels[levels.len() - 1].text;
        if !has_escapes(inner) {
            break;
        }
        let next = decode_escapes(inner);
        levels.push(next);
    }
    for (depth, level) in levels.iter().enumerate() {
        let mut found = Vec::new();
        rule_spans(&level.text, &mut found);
        for span in found {
            let range = levels[..=depth].iter().rev().fold(span.range, |range, outer| outer.original(&range));
            spans.push(Span { range, kind: span.kind });
        }
    }
}

/// Every secret the rules (and [`SPLIT_HEAD`]) find in `text`, a stretch claimed by an
/// earlier rule left to it.
fn rule_spans(text: &str, spans: &mut Vec<Span>) {
    let compiled = &*COMPILED;
    let hits = compiled.set.matches(text);
    for index in hits.iter().filter(|&i| i < compiled.split_index()) {
        let rule = &compiled.rules[index];
        for caps in rule.re.captures_iter(text) {
            let Some(secret) = hidden_by(rule, text, &caps) else { continue };
            if !spans.iter().any(|s| s.range.start < secret.end() && secret.start() < s.range.end) {
                spans.push(Span { range: secret.range(), kind: rule.kind });
            }
        }
    }
    if hits.matched(compiled.split_index()) {
        split_spans(text, spans);
    }
}

/// The secret a rule's match holds, unless it is kept or already redacted.
fn hidden_by<'t>(rule: &CompiledRule, text: &str, caps: &Captures<'t>) -> Option<regex::Match<'t>> {
    if rule.keep.is_some_and(|keep| keep(text, caps)) {
        return None;
    }
    secret_of(caps, rule.group).filter(|s| !s.as_str().starts_with("[REDACTED"))
}

/// Secrets broken by a line break: for every [`SPLIT_HEAD`], the line is joined to the next
/// one and, when a rule then finds a secret across the join, both halves are spans.
fn split_spans(text: &str, spans: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    for head in COMPILED.split.find_iter(text) {
        let Some(newline) = memchr::memrchr(b'\n', &bytes[head.start()..head.end()]).map(|i| head.start() + i) else {
            continue;
        };
        let head_end = if newline > 0 && bytes[newline - 1] == b'\r' { newline - 1 } else { newline };
        let line_start = memchr::memrchr(b'\n', &bytes[..head_end]).map_or(0, |i| i + 1);
        let tail_start = newline + 1;
        let tail_end = memchr::memchr(b'\n', &bytes[tail_start..]).map_or(bytes.len(), |i| tail_start + i);
        if let Some((kind, start, tail_len)) = joined_secret(&text[line_start..head_end], &text[tail_start..tail_end]) {
            spans.push(Span { range: line_start + start..head_end, kind });
            spans.push(Span { range: tail_start..tail_start + tail_len, kind });
        }
    }
}

/// A secret that starts in `head` (a line) and goes on into `tail` (the next line): its kind,
/// where it starts in `head` and how much of `tail` it takes.
///
/// When the head alone is already a whole secret, the tail may simply be the next line's
/// first word: it is taken only when it looks like the rest of a token (it holds a digit,
/// ends in base64 padding, or ends its line or string) and not like the next `name:`.
fn joined_secret(head: &str, tail: &str) -> Option<(&'static str, usize, usize)> {
    let compiled = &*COMPILED;
    let joined = format!("{head}{tail}");
    let join = head.len();
    for index in compiled.set.matches(&joined).iter().filter(|&i| i < compiled.split_index()) {
        let rule = &compiled.rules[index];
        for caps in rule.re.captures_iter(&joined) {
            let Some(secret) = hidden_by(rule, &joined, &caps) else { continue };
            if secret.start() >= join || secret.end() <= join {
                continue;
            }
            let taken = &joined[join..secret.end()];
            let head_whole =
                rule.re.captures_iter(head).any(|c| hidden_by(rule, head, &c).is_some_and(|s| s.end() == join));
            let ends_its_line = tail[taken.len()..].trim_end().is_empty()
                || tail[taken.len()..].starts_with(['"', '\'', '`', ')', ']', '}', ',', ';']);
            let looks_like_rest = (taken.bytes().any(|b| b.is_ascii_digit()) || taken.ends_with('=') || ends_its_line)
                && !taken.contains(':');
            if head_whole && !looks_like_rest {
                continue;
            }
            return Some((rule.kind, secret.start(), taken.len()));
        }
    }
    None
}

/// `text` with each span replaced by its marker; overlapping spans are one.
fn replace_spans(text: &str, mut spans: Vec<Span>) -> String {
    spans.sort_by_key(|s| (s.range.start, std::cmp::Reverse(s.range.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        if span.range.end <= at {
            continue;
        }
        let start = span.range.start.max(at);
        out.push_str(&text[at..start]);
        if start == span.range.start {
            out.push_str(&format!("[REDACTED:{}]", span.kind));
        }
        at = span.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Lines looked back over for the start of a secret that ends on a given line.
const CONTEXT_LINES: usize = 3;
/// Bytes looked back over at most.
const CONTEXT_BYTES: usize = 2048;

/// Where to start redacting so that a secret reaching into the line at `at` is seen whole:
/// a few lines back (further over blank lines: `password:` may sit above its value with
/// empty lines between), at most 2 KiB back.
pub(crate) fn context_start(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let floor = at.saturating_sub(CONTEXT_BYTES);
    let mut start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let mut counted = 0;
    while start > floor && counted < CONTEXT_LINES {
        let prev = memchr::memrchr(b'\n', &bytes[..start - 1]).map_or(0, |i| i + 1);
        if !text[prev..start].trim().is_empty() {
            counted += 1;
        }
        start = prev;
    }
    let mut start = start.max(floor);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    start
}

/// The line `text[start..end]`, redacted as part of what comes before it, so that a secret
/// whose key sits on an earlier line (`db_password:` above its value) is caught, which
/// redacting the line alone would miss.
pub(crate) fn redact_line_in(text: &str, start: usize, end: usize) -> String {
    let window = &text[context_start(text, start)..end];
    match redact(window) {
        Cow::Borrowed(_) => text[start..end].to_string(),
        Cow::Owned(redacted) => redacted.rsplit('\n').next().unwrap_or("").to_string(),
    }
}

/// Redact in place, for owned strings.
pub(crate) fn redact_string(text: &mut String) {
    if let Cow::Owned(s) = redact(text) {
        *text = s;
    }
}

/// Redact a borrowed-or-owned string without copying when nothing changes.
pub(crate) fn redact_cow<'a>(text: Cow<'a, str>) -> Cow<'a, str> {
    match redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// Redact the parts of an event that engines keep whole: the user's words, command lines,
/// file paths and compaction summaries. Bulky [`Unredacted`] text is left for whoever keeps a
/// piece of it (see [`Unredacted::excerpt`]).
pub(crate) fn redact_event(event: Event<'_>) -> Event<'_> {
    let Event { line, kind } = event;
    let kind = match kind {
        EventKind::User(text) => EventKind::User(redact_cow(text)),
        EventKind::Compaction(summary) => EventKind::Compaction(summary.map(redact_cow)),
        EventKind::ToolCall(mut call) => {
            call.command = call.command.map(redact_cow);
            call.writes.iter_mut().chain(call.reads.iter_mut()).for_each(redact_string);
            EventKind::ToolCall(call)
        }
        other => other,
    };
    Event { line, kind }
}

/// Redact what a session's metadata holds in free text: its title, working directory, branch
/// and remote, and its id and its parent's. They are stored, rendered and named files after
/// like everything else.
pub(crate) fn redact_meta(meta: &mut SessionMeta) {
    for field in [&mut meta.title, &mut meta.cwd, &mut meta.git_branch, &mut meta.git_remote].into_iter().flatten() {
        redact_string(field);
    }
    for id in [&mut meta.id, &mut meta.parent].into_iter().flatten() {
        redact_id(id);
    }
}

/// Redact a session id, keeping it apart from every other id: a redacted id carries a hash
/// of the whole original, so two sessions whose ids differ only in their secret stay two
/// sessions, and a sub-agent still finds its parent.
pub(crate) fn redact_id(id: &mut String) {
    if let Cow::Owned(clean) = redact(id) {
        let hash = blake3::hash(id.as_bytes()).to_hex();
        *id = format!("{clean}-{}", &hash[..16]);
    }
}

impl Unredacted<'_> {
    /// A redacted excerpt of at most about `max_bytes`: the head and the tail, cut at line or
    /// word boundaries so no secret is split into a fragment the patterns would miss, with a
    /// marker saying how much was left out.
    /// Text from outside the session is never kept: its excerpt is a marker.
    pub(crate) fn excerpt(&self, max_bytes: usize) -> String {
        if self.is_marked_outside() {
            return crate::core::external::EXTERNAL_WITHHELD.to_string();
        }
        let text = self.for_scanning();
        if text.len() <= max_bytes {
            return redact(text).into_owned();
        }
        let head = cut_before(text, max_bytes / 2);
        let tail = cut_after(text, text.len() - max_bytes / 2);
        let omitted = text.len() - head.len() - tail.len();
        format!("{}\n[… {omitted} bytes omitted …]\n{}", redact(head), redact_tail(text, text.len() - tail.len()))
    }
}

/// `text[start..]` redacted with the lines before it, so a secret whose key is above the
/// cut is caught. Usually the lines before change nothing and the tail is redacted alone;
/// when they do, the redacted text is kept from the tail's first line on.
fn redact_tail(text: &str, start: usize) -> String {
    let alone = redact(&text[start..]);
    let from = context_start(text, start);
    let with_context = redact(&text[from..]);
    if with_context.ends_with(alone.as_ref()) {
        return alone.into_owned();
    }
    let before = memchr::memchr_iter(b'\n', &text.as_bytes()[from..start]).count();
    with_context.split_inclusive('\n').skip(before).collect()
}

/// The longest prefix of `text` no longer than `limit` that ends at whitespace.
pub(crate) fn cut_before(text: &str, limit: usize) -> &str {
    let mut end = limit.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind(char::is_whitespace) {
        Some(ws) => &text[..ws],
        None => "",
    }
}

/// The longest suffix of `text` starting at or after `start` that begins after whitespace.
pub(crate) fn cut_after(text: &str, start: usize) -> &str {
    let mut begin = start.min(text.len());
    while !text.is_char_boundary(begin) {
        begin += 1;
    }
    match text[begin..].find(char::is_whitespace) {
        Some(ws) => text[begin + ws..].trim_start(),
        None => "",
    }
}

/// The kinds of secrets found in `text`, for reports; empty when there are none. Like
/// [`redact`], it reads JSON escapes and joins secrets broken across lines.
pub(crate) fn secret_kinds(text: &str) -> Vec<&'static str> {
    let compiled = &*COMPILED;
    let hits = compiled.set.matches(text);
    let mut kinds: Vec<&'static str> = hits
        .iter()
        .filter(|&i| i < compiled.split_index())
        .filter(|&i| {
            let rule = &compiled.rules[i];
            rule.re.captures_iter(text).any(|c| hidden_by(rule, text, &c).is_some())
        })
        .map(|i| compiled.rules[i].kind)
        .collect();
    let mut spans = Vec::new();
    if has_escapes(text) {
        escaped_spans(text, &mut spans);
    }
    if hits.matched(compiled.split_index()) {
        split_spans(text, &mut spans);
    }
    kinds.extend(spans.into_iter().map(|s| s.kind));
    let mut seen = Vec::new();
    kinds.retain(|k| {
        let new = !seen.contains(k);
        seen.push(k);
        new
    });
    kinds
}

/// The part of a match that is the secret: the chosen group, or any group that took part
/// (a rule with alternatives may capture in either), or the whole match.
fn secret_of<'t>(caps: &Captures<'t>, group: Option<usize>) -> Option<regex::Match<'t>> {
    match group {
        Some(_) => caps.iter().skip(1).flatten().next(),
        None => caps.get(0),
    }
}

fn replace_rule<'t>(text: &'t str, rule: &CompiledRule) -> Cow<'t, str> {
    let marker = format!("[REDACTED:{}]", rule.kind);
    let replaced = rule.re.replace_all(text, |caps: &Captures| {
        let Some(whole) = caps.get(0) else {
            return String::new();
        };
        if rule.keep.is_some_and(|keep| keep(text, caps)) {
            return whole.as_str().to_string();
        }
        match secret_of(caps, rule.group) {
            Some(secret) if secret.as_str().starts_with("[REDACTED") => whole.as_str().to_string(),
            Some(secret) => {
                let start = secret.start() - whole.start();
                let end = start + secret.len();
                let w = whole.as_str();
                format!("{}{}{}", &w[..start], marker, &w[end..])
            }
            None => whole.as_str().to_string(),
        }
    });
    // Every match kept: nothing changed, and the caller need not look again.
    match replaced {
        Cow::Owned(s) if s == text => Cow::Borrowed(text),
        other => other,
    }
}

#[cfg(test)]
mod kinds;

#[cfg(test)]
mod tests {
    use super::*;

    fn hides(input: &str, secret: &str, kind: &str) {
        let out = redact(input);
        assert!(!out.contains(secret), "{kind}: secret survived in {out:?}");
        assert!(out.contains(&format!("[REDACTED:{kind}]")), "{kind}: no marker in {out:?}");
    }

    #[test]
    fn openai_keys_including_project_keys() {
        hides("key sk-abcdefghijklmnopqrstuvwxyz0123 here", "sk-abcdefghij", "openai");
        hides("OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "sk-proj-Ab3d", "openai");
    }

    #[test]
    fn anthropic_keys() {
        hides("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_aa", "api03-AbCd", "anthropic");
    }

    #[test]
    fn aws_access_key_ids_and_secret_keys() {
        hides("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws_access_key_id");
        hides("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "aws_secret_key");
        hides(
            "use key AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY please",
            "wJalrXUtnFEMI",
            "aws_secret_key",
        );
        hides("the secret is abcdefghijABCDEFGHIJ0123456789abcdefghi+ and more", "abcdefghijABCDEF", "aws_secret_key");
    }

    #[test]
    fn github_tokens_of_every_prefix() {
        for prefix in ["ghp", "gho", "ghu", "ghs", "ghr"] {
            let token = format!("{prefix}_16C7e42F292c6912E7710c838347Ae178B4a");
            hides(&format!("token {token}"), &token, "github");
        }
        hides(
            "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
            "github_pat_11ABC",
            "github",
        );
    }

    #[test]
    fn gitlab_slack_stripe_google() {
        hides("glpat-xYz123AbC456dEf789gHi0", "glpat-xYz", "gitlab");
        hides("xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-1234", "slack");
        hides("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC3", "stripe");
        hides("rk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_4eC3", "stripe");
        hides("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tS", "google");
    }

    #[test]
    fn private_keys_of_every_pem_flavour() {
        for label in [
            "PRIVATE KEY",
            "RSA PRIVATE KEY",
            "EC PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "DSA PRIVATE KEY",
        ] {
            let block = format!(
                "-----BEGIN {label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END {label}-----"
            );
            hides(&format!("cat key.pem\n{block}\ndone"), "MIIEvQIBADAN", "private_key");
            assert!(redact(&format!("{block}\ndone")).ends_with("done"));
        }
        hides(
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----",
            "lQOYBF0",
            "private_key",
        );
    }

    #[test]
    fn a_private_key_cut_in_half_is_still_hidden() {
        hides("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "MIIEvQ", "private_key");
        hides(
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",
            "MIIEvQ",
            "private_key",
        );
    }

    #[test]
    fn jwts_and_bearer_tokens() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        hides(&format!("jwt={jwt}"), "dozjgNryP4J3", "jwt");
        // A JSON header is enough, whatever the payload holds.
        hides("cachix use x with eyJhbGciOiJIUzI1NiJ9.CorrieFake0123456789.abcdefFAKEsig", "CorrieFake", "jwt");
        hides("cachix authtoken Zm9vYmFyYmF6cXV4cXV1eDAxMjM0NTY3", "Zm9vYmFyYmF6", "cli_password");
        let out = redact("curl -H 'Authorization: Bearer abcdef0123456789abcdef'");
        assert_eq!(out, "curl -H 'Authorization: Bearer [REDACTED:bearer]'");
    }

    #[test]
    fn passwords_given_as_options() {
        hides("mysql --password=Sup3rSecret -h db", "Sup3rSecret", "cli_password");
        hides("deploy --token abc123def456", "abc123def456", "cli_password");
        hides("curl -u admin:opensesame42 https://x", "opensesame42", "cli_password");
        hides("redis-cli -h cache -a r3d1spass ping", "r3d1spass", "cli_password");
        assert_eq!(redact("login --password $DB_PASSWORD"), "login --password $DB_PASSWORD");
    }

    #[test]
    fn credentials_in_urls() {
        let out = redact("git clone https://deploy:hunter2secret@git.example.com/acme/app.git");
        assert_eq!(out, "git clone https://[REDACTED:url_credentials]@git.example.com/acme/app.git");
        assert_eq!(redact("see https://example.com/a:b"), "see https://example.com/a:b");
        let out = redact("mysql://root:P@ssw0rd@localhost:3306/app");
        assert_eq!(out, "mysql://[REDACTED:url_credentials]@localhost:3306/app");
    }

    #[test]
    fn npm_pypi_huggingface_azure() {
        hides("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdef", "npm");
        hides("//registry.npmjs.org/:_authToken=abcdef12-3456-7890", "abcdef12-3456", "npm");
        hides(
            "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlszLCJ",
            "AgEIcHlwaS5vcmc",
            "pypi",
        );
        hides("HF_TOKEN hf_abcdefghijklmnopqrstuvwxyzABCDEF", "hf_abcdefgh", "huggingface");
        hides(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net",
            "Zm9vYmFy",
            "azure",
        );
    }

    #[test]
    fn env_style_assignments_of_credential_names() {
        hides("DB_PASSWORD=correct-horse-battery", "correct-horse", "secret_assignment");
        hides(r#"{"client_secret": "s3cr3tvalue99"}"#, "s3cr3tvalue99", "secret_assignment");
        hides("export API_KEY='abc123def456ghi'", "abc123def456", "secret_assignment");
        hides("GITHUB_TOKEN: zzzzyyyyxxxx1111", "zzzzyyyyxxxx", "secret_assignment");
        hides("credentials = mYcReDeNtIaL42", "mYcReDeNtIaL42", "secret_assignment");
        hides("SECRET_KEY=django-insecure-abc123", "django-insecure", "secret_assignment");
        hides("POSTGRES_PASSWORD=postgres", "=postgres", "secret_assignment");
        hides("DB_PASSWORD=correcthorsebattery", "correcthorse", "secret_assignment");
        hides("token=abcdefghijklmnopqrstuvwxyz", "abcdefghijkl", "secret_assignment");
        hides("passwd: secretsecret", "secretsecret", "secret_assignment");
        hides("password=hunter2", "hunter2", "secret_assignment");
        hides("DB_PASS=s3cr3tpw", "s3cr3tpw", "secret_assignment");
        hides("SMTP_PWD=mailpass99", "mailpass99", "secret_assignment");
        hides("SECRET_KEY_BASE=0123456789abcdef0123", "0123456789abcdef", "secret_assignment");
    }

    #[test]
    fn ordinary_identifiers_and_prose_survive() {
        let keep = [
            "fn keyboard_shortcut_handler(event: KeyEvent) {}",
            "token_count: 1234",
            "max_tokens = 2500",
            "let password_field = form.get(\"password\");",
            "password = $DB_PASSWORD",
            "api_key: <your key here>",
            "The tokenizer counts tokens; a secret is never printed.",
            "Use `cargo test --workspace` before pushing.",
            "task-2026-11-20 sk-short",
            "https://github.com/acme/app/blob/main/src/lib.rs#L10",
            "skip-navigation-links and desk-lamp are fine",
            "[REDACTED:openai] stays as it is",
            "token: [REDACTED:github]",
            "let token = self.next_token();",
            "let key = config.api_key;",
            "secret = derive_secret_from(seed)",
            "the token parser_combinators_are_fun",
            "fn parse(token: TokenStream) -> Result<Ast>",
            "|token: CancellationToken| token.cancel()",
            "let session_key: SessionKeyFactory = make();",
            "csrf_token = request.form[\"csrf_token\"]",
            "The service uses bearer authentication and authorization headers.",
            "an sk-learn-compatible-estimator-interface for models",
            "bypass = true and compass: north",
        ];
        for text in keep {
            assert_eq!(redact(text), text, "changed ordinary text");
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        let once = redact("DB_PASSWORD=correct-horse-battery and sk-abcdefghijklmnopqrstuvwxyz").into_owned();
        assert_eq!(redact(&once), once);
        assert!(secret_kinds(&once).is_empty(), "{:?}", secret_kinds(&once));
    }

    #[test]
    fn excerpts_cut_at_word_boundaries_and_redact() {
        let key = "sk-abcdefghijklmnopqrstuvwxyz0123";
        let text = format!("{} {key} {}", "word ".repeat(200), "tail ".repeat(200));
        let excerpt = Unredacted::new(text.as_str()).excerpt(400);
        assert!(excerpt.len() < 500, "{}", excerpt.len());
        assert!(excerpt.contains("bytes omitted"));
        assert!(!excerpt.contains("sk-abc"), "{excerpt}");
        let around = format!("{} {key} {}", "a ".repeat(99), "b ".repeat(99));
        let excerpt = Unredacted::new(around.as_str()).excerpt(200);
        assert!(!excerpt.contains("sk-"), "a split key leaked: {excerpt}");
        // A value at the start of the tail whose key is above the cut.
        let split = format!("{}db_password:\n\n  Hunter2Passw0rdXyz\nmore\n", "line of output\n".repeat(100));
        let excerpt = Unredacted::new(split.as_str()).excerpt(60);
        assert!(!excerpt.contains("Hunter2"), "{excerpt}");
    }

    #[test]
    fn a_secret_in_a_session_id_is_redacted_and_the_ids_stay_apart() {
        let meta = |id: &str| {
            let mut meta = SessionMeta {
                id: Some(id.to_string()),
                parent: Some(format!("{id}-parent")),
                ..SessionMeta::default()
            };
            redact_meta(&mut meta);
            meta
        };
        let one = meta("run-ghp_16C7e42F292c6912E7710c838347Ae178B4a");
        let two = meta("run-ghp_26C7e42F292c6912E7710c838347Ae178B4b");
        for meta in [&one, &two] {
            for id in [&meta.id, &meta.parent].into_iter().flatten() {
                assert!(!id.contains("6C7e42F292c"), "{id}");
                assert!(id.starts_with("run-[REDACTED:github]"), "{id}");
            }
        }
        assert_ne!(one.id, two.id);
        assert_eq!(
            meta("019b64e5-57fa-7463-b644-fba7e456f905").id.as_deref(),
            Some("019b64e5-57fa-7463-b644-fba7e456f905")
        );
        let mut again = one.id.clone().unwrap_or_default();
        redact_id(&mut again);
        assert_eq!(Some(again), one.id, "redacting an id twice changed it");
    }

    #[test]
    fn pieces_of_tokens_are_told_from_words() {
        for piece in ["ghp_16C7e42F292c6912E77", "xapp-1-A0123BCD", "sk-proj-Ab3dEf6h", "AKIAQ3EGKT"] {
            assert!(looks_like_token(piece), "{piece}");
        }
        for word in ["sk-learn-estimator", "keyboard_shortcut_handler", "token_count", "SKU-1234", "ghp_"] {
            assert!(!looks_like_token(word), "{word}");
        }
    }

    #[test]
    fn secret_kinds_names_what_was_found() {
        assert_eq!(secret_kinds("AKIAIOSFODNN7EXAMPLE"), ["aws_access_key_id"]);
        assert!(secret_kinds("nothing here").is_empty());
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn redact_example() {
        use crate::core::redact::redact;
        assert_eq!(
            redact("export OPENAI_API_KEY=sk-abc123def456ghi789jkl012"),
            "export OPENAI_API_KEY=[REDACTED:openai]"
        );
        assert_eq!(redact("token_count: 1234"), "token_count: 1234");
    }

    #[test]
    fn redact_line_in_example() {
        use crate::core::redact::redact_line_in;
        let text = "config:\n  db_password:\n\n    Hunter2Passw0rdXyz\ndone";
        let start = text.find("    Hunter2").unwrap();
        let line = redact_line_in(text, start, start + "    Hunter2Passw0rdXyz".len());
        assert!(!line.contains("Hunter2") && line.contains("[REDACTED:"), "{line}");
    }
}
