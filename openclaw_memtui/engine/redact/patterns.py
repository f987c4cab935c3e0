"""Mask secrets in transcript text before it is indexed (OpenClaw spec §4.5).

Memory markdown is the user's own writing and is not redacted; chat transcripts often carry pasted
keys, so their text is masked the way OpenClaw does it when *it* indexes a session transcript.

Parity target: OpenClaw 2026.9.6. Its memory indexer (``buildSessionEntryInProcess`` in
``dist/session-files-*.mjs``) passes each user/assistant message text through
``redactSensitiveText(text, {mode: "tools"})`` with no custom patterns, i.e. the built-in
``DEFAULT_REDACT_PATTERNS`` (field patterns + vendor token patterns + the AWS secret-key scanner),
after three structural passes (HTTP auth parameters, URL query values, form bodies). This module
is a Python port of that path, rule for rule and in the same order, with the same masking:

* ``_mask_token``: shorter than 18 UTF-16 units -> ``***``; otherwise the first 6 units, ``…`` and
  the last 4 (never splitting a surrogate pair), exactly like ``maskToken``.
* PEM private keys: first line, ``…redacted…``, last line (``redactPemBlock``).
* URL query values of secret-named parameters: ``maskToken``; form-body values: ``***``;
  structured ``Authorization: Digest a=b, …`` parameters: ``***``.

``tests/fixtures/redaction/openclaw-2026.9.6.json`` holds the real OpenClaw's output for a corpus
(made by ``tests/fixtures/redaction/make_oracle.mjs``); ``tests/test_redact_parity.py`` checks every case.

Known, deliberate gaps (not at parity):

* Registered secret values (``redactRegisteredSecretValues``): OpenClaw also masks the exact values
  of secrets it resolved from its own config at runtime. memtui does not load those secrets, so a
  secret that matches no pattern is masked by OpenClaw only.
* User ``logging.redactPatterns`` are ignored by OpenClaw's indexer path too (it passes explicit
  options), so nothing is lost there.
* Unicode corner cases of JS regex flags: in OpenClaw's ``iu`` regexes (form-body context and the
  prefilter) ``ſ`` (U+017F) and the Kelvin sign (U+212A) case-fold to ``s``/``k``; here all matching
  is ASCII case-insensitive. ``\\p{C}`` (used for invisible characters in form keys) is computed from
  Python's Unicode database, which may be a version behind Node's ICU for newly assigned characters.
* Positions are counted in code points here and in UTF-16 units in JS; they only differ around
  astral characters (emoji), which matters only for the 16 384-unit chunk boundaries of texts longer
  than 32 768 units (handled in UTF-16 units, as in JS) and for the AWS scanner's neighbours.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

# ---------------------------------------------------------------------------------------------
# JS -> Python regex translation
# ---------------------------------------------------------------------------------------------

# JS `\s` (ECMAScript WhiteSpace + LineTerminator). Python's Unicode `\s` differs (it includes
# \x1c-\x1f and \x85, lacks \ufeff), and with re.ASCII it loses the Unicode spaces, so it is spelled out.
_JS_WS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_JS_WS_RE = re.compile(f"[{_JS_WS}]")


def _js(source: str) -> str:
    """Rewrite the few JS regex constructs whose Python meaning differs.

    * ``\\s`` / ``\\S`` -> the explicit JS whitespace set (see ``_JS_WS``);
    * ``$`` (no ``m`` flag in JS: end of input only) -> ``\\Z`` (Python's ``$`` also matches
      before a trailing newline);
    * ``.`` (JS excludes \\n, \\r, U+2028, U+2029) -> an explicit negated class.
    Everything is compiled with re.ASCII so ``\\b``, ``\\d``, ``\\w`` and case folding are ASCII-only,
    as in JS regexes without the ``u`` flag (CJK text glued to a token still has a ``\\b`` there).
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "s":
                out.append(_JS_WS if in_class else f"[{_JS_WS}]")
            elif nxt == "S":
                if in_class:
                    raise ValueError("\\S inside a class has no Python spelling")
                out.append(f"[^{_JS_WS}]")
            else:
                out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            out.append(ch)
            # A leading `^` or `]` belongs to the class syntax, not to its content.
            if source[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        elif ch == "$":
            out.append(r"\Z")
            i += 1
            continue
        elif ch == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _compile(source: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(_js(source), re.ASCII | (re.IGNORECASE if ignore_case else 0))


# ---------------------------------------------------------------------------------------------
# Masking (maskToken, splitSecretValueForMask, redactPemBlock)
# ---------------------------------------------------------------------------------------------

_MIN_LENGTH = 18  # DEFAULT_REDACT_MIN_LENGTH, in UTF-16 units
_KEEP_START = 6  # DEFAULT_REDACT_KEEP_START
_PEM_MARKER = "…redacted…"


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF) if not s.isascii() else len(s)


def _utf16_head(s: str, units: int) -> str:
    """sliceUtf16Safe(s, 0, units): never ends inside a surrogate pair (the pair is dropped)."""
    if s.isascii():
        return s[:units]
    out, used = [], 0
    for c in s:
        w = 2 if ord(c) > 0xFFFF else 1
        if used + w > units:
            break
        out.append(c)
        used += w
    return "".join(out)


def _utf16_tail(s: str, units: int) -> str:
    """sliceUtf16Safe(s, -units): never starts inside a surrogate pair (the pair is dropped)."""
    if s.isascii():
        return s[-units:] if units else ""
    out, used = [], 0
    for c in reversed(s):
        w = 2 if ord(c) > 0xFFFF else 1
        if used + w > units:
            break
        out.append(c)
        used += w
    return "".join(reversed(out))


def _mask_token(token: str) -> str:
    if token == "***":
        return token
    if _utf16_len(token) < _MIN_LENGTH:
        return "***"
    return f"{_utf16_head(token, _KEEP_START)}…{_utf16_tail(token, 4)}"


_TRAILING_DELIMS = re.compile(r"([\"'`,;)}\]]+)\Z")
_SUFFIX_ONLY = re.compile(r"[\"'`,;)}\]]*\Z")


def _split_secret_value(token: str) -> tuple[str, str, int]:
    """(maskable, suffix, mask_end) of a captured value: quotes and trailing delimiters are not secret."""
    if token[:1] in ("\"", "'", "`"):
        close = token.rfind(token[0])
        if close > 0:
            suffix = token[close + 1 :]
            if _SUFFIX_ONLY.match(suffix):
                return token[1:close], suffix, close + 1
        rest = token[1:]
        m = _TRAILING_DELIMS.search(rest)
        trailing = m.group(1) if m else ""
        keep = bool(trailing) and len(trailing) < len(rest)
        maskable = rest[: -len(trailing)] if keep else rest
        return maskable, trailing if keep else "", 1 + len(maskable)
    m = _TRAILING_DELIMS.search(token)
    trailing = m.group(1) if m else ""
    maskable = token[: -len(trailing)] if trailing and len(trailing) < len(token) else token
    return maskable, ("" if maskable == token else trailing), len(maskable)


def _mask_secret_value(token: str) -> str:
    """maskSecretValue(token, {hinted: true}): the quotes go, trailing delimiters stay."""
    maskable, suffix, _ = _split_secret_value(token)
    return _mask_token(maskable) + suffix


def _split_form_aware(token: str) -> tuple[str, str]:
    m = _FORM_AWARE_SPLIT.search(token)
    return (token, "") if m is None else (token[: m.start()], token[m.start() :])


_FORM_AWARE_SPLIT = re.compile(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return "***"
    return f"{lines[0]}\n{_PEM_MARKER}\n{lines[-1]}"


# ---------------------------------------------------------------------------------------------
# Key lists (src/logging/redact-patterns.ts), composed into the pattern table below
# ---------------------------------------------------------------------------------------------

_PAY_ENV = r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN"
_PAY_QUERY = r"card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token"
_PAY_JSON = (r"cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code"
             r"|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token")
_AWS_FIELD = r"aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_AUTH_QUERY = (r"access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey"
               r"|client[-_]?secret|app[-_]?secret|private[-_]?key|" + _AWS_FIELD +
               r"|credential|authorization|token|key|secret|password|pass|passwd|auth|jwt|session|code|signature"
               r"|x[-_]?amz[-_]?(?:signature|security[-_]?token)")
_FORM_FIRST_PAIR = _AUTH_QUERY + r"|app[-_]?secret|credential|" + _PAY_QUERY
_STANDALONE = (r"access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret"
               r"|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|" + _PAY_QUERY)
_CONFIG = (r"access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
           r"|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token"
           r"|secret|password|passphrase|pass|passwd|credential|" + _PAY_QUERY)
_CONFIG_DIRECT = r"access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|passphrase"
_CONFIG_PW = r"password|passphrase|pass|passwd"
_CONFIG_QUOTED = (r"access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)"
                  r"|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|" + _PAY_QUERY)
_CLI_FLAGS = (_AWS_FIELD + r"|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret"
              r"|password|passwd|credential|private[-_]?key|client[-_]?secret|" + _PAY_QUERY)
_ENV_NAMES = r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|" + _PAY_ENV

# HTTP auth building blocks (packages/acp-core/src/structured-auth-redaction.ts). `\\{1,64}` are
# JSON/log-escaped backslashes: a header serialized inside a string literal is still a header.
_AUTH_SCHEME = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_AUTH_OPAQUE = r"""(?:\[REDACTED\]|[^\s\\"',;&#?<>)}\]]+)"""
_SER_TAB = r"\\{1,64}t"
_SER_INDENT = r"(?:[ \t]+|" + _SER_TAB + ")"
_WS_OPT = (r"(?:[ \t]*\r?\n" + _SER_INDENT + r"|[ \t]*\\{1,64}r\\{1,64}n" + _SER_INDENT + r"|[ \t]*\\{1,64}n" + _SER_INDENT
           + r"|[ \t]*" + _SER_TAB + r"[ \t]*|[ \t]*)")
_WS_REQ = (r"(?:[ \t]*\r?\n" + _SER_INDENT + r"|[ \t]*\\{1,64}r\\{1,64}n" + _SER_INDENT + r"|[ \t]*\\{1,64}n" + _SER_INDENT
           + r"|[ \t]*" + _SER_TAB + r"[ \t]*|[ \t]+)")
_WS_LEGACY = (r"(?:[ \t\r\n]*|[ \t]*\\{1,64}r\\{1,64}n(?:[ \t]*|" + _SER_TAB + r")|[ \t]*\\{1,64}n(?:[ \t]*|" + _SER_TAB
              + r")|[ \t]*" + _SER_TAB + r"[ \t]*)")
_HEADER_BOUNDARY = r"(^|[^A-Za-z0-9_-]|\\{1,64}[rn])"
_LOG_HEADER_BOUNDARY = r"(^|[^A-Za-z0-9_?&-]|\\{1,64}[rn])"
_SER_QUOTE = r"""(?:\\{1,64}["']|["']|)"""
_AUTH_VALUE_END = r"""[ \t]*(?=""" + _SER_QUOTE + r"""(?:$|[,;)}\]]|\r?\n(?![ \t])))"""
_CRED_HEADERS = "x-goog-api-key|api-key|apikey|x-api-token|x-access-token"
_GATEWAY_HEADERS = "X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token"

# Boundary prefixes of vendor patterns. OpenClaw's BASE64_SAFE_TOKEN_BOUNDARY is
# `(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)`: a variable-length lookbehind, which Python's `re`
# cannot compile. The table keeps the fixed part and sets `base64_guard`, and `_iter_matches`
# rejects a candidate preceded by `;base64,<b64 chars>` and retries one position later, which is
# what the JS engine does when that lookbehind fails.
_B64 = r"(^|[^A-Za-z0-9])"
_IDENT = r"(^|[^A-Za-z0-9_])"


@dataclass(frozen=True)
class _Rule:
    name: str
    regex: re.Pattern[str]
    shell: bool = False  # env/standalone rules: keep `KEY=$KEY`, mask with maskToken(raw value)
    form_aware: bool = False  # header `=` rules: `k=v&next=...` masks only v
    chunk_unsafe: bool = False  # never applied chunk-wise on long text (see _replace_bounded)
    base64_guard: bool = False  # emulated `(?<!;base64,[A-Za-z0-9+/=]*)`
    # Speed only, never meaning: a rule runs only if the text holds every `all_of` string and one
    # `any_of` string (lower-cased text unless `cs`). Each is something every match must contain;
    # Python's `re` is several times slower than V8's and most rules find nothing in most messages.
    any_of: tuple[str, ...] = ()
    all_of: tuple[str, ...] = ()
    cs: bool = False


def _r(name: str, source: str, *, ic: bool = True, **flags: bool) -> _Rule:
    any_of, all_of = _GATES.get(name, ((), ()))
    if not any_of and not all_of and name in _VENDOR_NEEDLES:
        any_of = _VENDOR_NEEDLES[name]
    return _Rule(name, _compile(source, ic), any_of=any_of, all_of=all_of, cs=not ic, **flags)


# Gates (see _Rule): fragments each rule's match must contain, (any_of, all_of).
_ENV_WORDS = ("KEY", "TOKEN", "SECRET", "PASSW", "NUMBER", "CVC", "CVV", "CODE", "CREDENTIAL")
_SECRETISH = ("key", "token", "secret", "pass", "credential", "authorization", "jwt", "card", "cvc", "cvv", "security", "payment", "material")
_GATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "env assignment": (_ENV_WORDS, ()),
    "escaped env assignment": (_ENV_WORDS, ("\\",)),
    "JSON secret field": (("key", "token", "secret", "passw", "credential", "authorization", "cookie"), ("\"", ":")),
    "JSON payment field": (("card", "cvc", "cvv", "security", "payment"), ("\"", ":")),
    "quoted secret field": (("key", "token", "secret", "credential", "authorization"), ()),
    "quoted auth field": (("authorization", "cookie", "api-key", "auth-token"), ()),
    "CLI flag =": ((), ("--", "=")),
    "CLI flag value": ((), ("--",)),
    "API-key header :": (("api-key", "apikey", "api-token", "access-token"), (":",)),
    "API-key header =": (("api-key", "apikey", "api-token", "access-token"), ("=",)),
    "gateway header :": (("openclaw-token", "jwt-assertion", "api-key", "auth-token"), (":",)),
    "gateway header =": (("openclaw-token", "jwt-assertion", "api-key", "auth-token"), ("=",)),
    "Bearer token": ((), ("bearer",)),
    "URL password (http/ws/ftp)": ((), ("://", "@")),
    "URL password (database/queue)": ((), ("://", "@")),
    "form body first pair": ((), ("=", "&")),
    "standalone quoted assignment": ((), ("=",)),
    "standalone assignment": ((), ("=",)),
    "config quoted assignment": (_SECRETISH, ()),
    "config assignment": (_SECRETISH, ()),
    "config direct assignment": (("token", "key", "secret", "material", "passphrase"), ("=",)),
    "config prefixed password": ((), ("pass",)),
    "config namespaced assignment": (_SECRETISH, (".",)),
    "AWS secret access key field": ((), ("secret", "access")),
    "Discord bot token": ((), ("discord", ".")),
    "Telegram bot token (bot…)": ((), ("bot", ":")),
    "Telegram bot token": ((), (":",)),
}
for _auth in ("Authorization: Bearer", "Authorization: Basic", "Authorization: Bot", "Proxy-Authorization scheme",
              "Proxy-Authorization bare", "Authorization other scheme", "Authorization bare"):
    _GATES[_auth] = ((), ("authorization",))


# The literal every vendor token starts with (lower-cased), used as its gate.
_VENDOR_NEEDLES: dict[str, tuple[str, ...]] = {
    "OpenAI/Anthropic sk-": ("sk-",), "GitHub ghp_": ("ghp_",), "GitHub fine-grained PAT": ("github_pat_",), "GitHub gho_": ("gho_",),
    "GitHub ghu_": ("ghu_",), "GitHub ghs_": ("ghs_",), "GitHub ghr_": ("ghr_",), "GitLab PAT": ("glpat-",), "GitLab OAuth app secret": ("gloas-",),
    "GitLab deploy token": ("gldt-",), "GitLab CI build token": ("glcbt-",), "GitLab pipeline trigger": ("glptt-",), "GitLab feed token": ("glft-",),
    "GitLab incoming mail": ("glimt-",), "GitLab agent": ("glagent-",), "GitLab workspace": ("glwt-",), "GitLab SCIM/OAuth": ("glsoat-",),
    "GitLab feature flags": ("glffct-",), "GitLab runner": ("glrt-",), "GitLab runner (routable)": ("glrt",), "GitLab runner registration": ("gr1348941",),
    "GitLab session cookie": ("_gitlab_session=",), "Slack token": ("xox",), "Slack app token": ("xapp-",), "Slack webhook": ("hooks.slack.com",),
    "Discord webhook": ("discord",), "Groq": ("gsk_",), "Google API key": ("aiza",), "Google OAuth access": ("ya29.",),
    "Google OAuth refresh": ("1//0",), "JWT": ("eyj",), "Perplexity": ("pplx-",), "fal": ("fal_",), "Firecrawl": ("fc-",), "Browserbase": ("bb_live_",),
    "Fernet token": ("gaaaa",), "Stripe live secret": ("sk_live_",), "Stripe test secret": ("sk_test_",), "Stripe restricted": ("rk_live_",),
    "SendGrid": ("sg.",), "npm": ("npm_",), "PyPI": ("pypi-",), "DigitalOcean PAT": ("dop_v1_",), "DigitalOcean OAuth": ("doo_v1_",),
    "DigitalOcean refresh": ("dor_v1_",), "Doppler": ("dp.",), "Doppler service": ("dp.st.",), "Doppler scoped service": ("dp.st.",),
    "Docker Hub": ("dckr_",), "Buildkite": ("bkua_",), "CircleCI": ("ccipat_",), "Supabase": ("sbp_",), "Databricks": ("dapi",),
    "Datadog": ("ddp_", "ddw_"), "Grafana service account": ("glsa_",), "Grafana cloud": ("glc_eyj",), "Netlify": ("nfp_",), "Contentful": ("cfpat-",),
    "Atlassian ATCTT3": ("atctt3xffg",), "Atlassian ATATT": ("atatt",), "Bitbucket ATBB": ("atbb",), "Bitbucket Data Center": ("bbdc-",),
    "Heroku": ("hrku-aa",), "HubSpot": ("pat-eu1-", "pat-na1-"), "Apify": ("apify_api_",), "Fly.io": ("flyv1 fm",), "Frame.io": ("fio-u-",),
    "am_": ("am_",), "sk_ (generic)": ("sk_",), "Tavily": ("tvly-",), "Exa": ("exa_",), "Matrix": ("syt_",), "RetainDB": ("retaindb_",),
    "hsk-": ("hsk-",), "mem0": ("mem0_",), "brv_": ("brv_",), "xAI": ("xai-",), "Fireworks fw-": ("fw-",), "Fireworks fw_": ("fw_",),
    "fpk_": ("fpk_",), "AWS access key id": ("akia",), "AWS temporary key id": ("asia",), "Tencent Cloud": ("akid",), "Alibaba Cloud": ("ltai",),
    "Hugging Face": ("hf_",), "Hugging Face org": ("api_org_",), "Replicate": ("r8_",),
}
# DEFAULT_REDACT_FIELD_PATTERNS, in OpenClaw's order. `ic=False` marks the sources OpenClaw writes
# as `/…/g` literals (case-sensitive); every plain-string source gets the flags "gi".
_FIELD_RULES: list[_Rule | str] = [
    _r("env assignment", r"""\b[A-Z0-9_]*(?:""" + _ENV_NAMES + r""")\b\s*[=:]\s*(["']?)([^\s"'\\]+)\1""", ic=False, shell=True),
    _r("escaped env assignment", r"""\b[A-Z0-9_]*(?:""" + _ENV_NAMES + r""")\b\s*[=:]\s*\\+(["'])([^\s"'\\]+)\\+\1""", ic=False, shell=True),
    _r("JSON secret field", r'''"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd|'''
       + _AWS_FIELD + r'''|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|accessToken'''
       r'''|access_token|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|clientSecret|client_secret|privateKey'''
       r'''|private_key|secret_value|raw_secret|secret_input|key_material)"\s*:\s*"([^"]+)"'''),
    _r("JSON payment field", r'''"(?:''' + _PAY_JSON + r''')"\s*:\s*"([^"]+)"'''),
    _r("quoted secret field", r'''(^|[\s,{])["']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token'''
       r'''|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization|secret[-_]value'''
       r'''|raw[-_]secret|secret[-_]input|key[-_]material)["']?\s*[:=]\s*(["'])([^"'\r\n]+)\2'''),
    _r("quoted auth field", r'''(^|[\s,{])["']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)["']?\s*[:=]\s*(["'])([^"'\r\n]+)\2'''),
    _r("CLI flag =", r'''--(?:''' + _CLI_FLAGS + r''')=([^\s"']+)'''),
    _r("CLI flag value", r'''--(?:''' + _CLI_FLAGS + r''')\s+(?!(?:or|and)\b(?=\s+--))(["']?)([^\s"']+)\1'''),
    _r("Authorization: Bearer", "Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_LEGACY + _SER_QUOTE + "Bearer" + _WS_REQ + "(" + _AUTH_OPAQUE + ")", chunk_unsafe=True),
    _r("Authorization: Basic", "Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_LEGACY + _SER_QUOTE + "Basic" + _WS_REQ + "(" + _AUTH_OPAQUE + ")", chunk_unsafe=True),
    _r("Authorization: Bot", "Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_LEGACY + _SER_QUOTE + "Bot" + _WS_REQ + "(" + _AUTH_OPAQUE + ")", chunk_unsafe=True),
    _r("Proxy-Authorization scheme", _HEADER_BOUNDARY + "Proxy-Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE + _AUTH_SCHEME + _WS_REQ + "(" + _AUTH_OPAQUE + ")", chunk_unsafe=True),
    _r("Proxy-Authorization bare", _HEADER_BOUNDARY + "Proxy-Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE + "(" + _AUTH_OPAQUE + ")" + _AUTH_VALUE_END, chunk_unsafe=True),
    _r("Authorization other scheme", _HEADER_BOUNDARY + "Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE
       + "(?!(?:Bearer|Basic|Bot)(?=" + _WS_REQ + "))" + _AUTH_SCHEME + _WS_REQ + "(" + _AUTH_OPAQUE + ")", chunk_unsafe=True),
    _r("Authorization bare", _HEADER_BOUNDARY + "Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE
       + "(?!(?:Bearer|Basic|Bot)(?=" + _WS_REQ + "))(" + _AUTH_OPAQUE + ")" + _AUTH_VALUE_END, chunk_unsafe=True),
    _r("API-key header :", _LOG_HEADER_BOUNDARY + "(?:" + _CRED_HEADERS + ")" + _SER_QUOTE + r"[ \t]*:" + _WS_OPT + _SER_QUOTE + r'''([^\s\\"',;]+)''', chunk_unsafe=True),
    _r("API-key header =", _LOG_HEADER_BOUNDARY + "(?:" + _CRED_HEADERS + ")" + _SER_QUOTE + r"[ \t]*=" + _WS_OPT + _SER_QUOTE + r'''([^\s\\"',;]+)''', chunk_unsafe=True, form_aware=True),
    _r("gateway header :", _LOG_HEADER_BOUNDARY + "(?:" + _GATEWAY_HEADERS + r''')\s*:\s*([^\s"',;]+)'''),
    _r("gateway header =", _LOG_HEADER_BOUNDARY + "(?:" + _GATEWAY_HEADERS + r''')\s*=\s*([^\s"',;]+)''', form_aware=True),
    _r("Bearer token", r"\bBearer\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])", chunk_unsafe=True),
    _r("URL password (http/ws/ftp)", r"\b(?:https?|wss?|ftp):\/\/[^\/\s:@]*:([^\/\s@]+)@"),
    _r("URL password (database/queue)", r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]*:([^@\s]+)@"),
    _r("form body first pair", r"(^|[\s,;])(?:" + _FORM_FIRST_PAIR + r")=([^&\s]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)"),
    _r("standalone quoted assignment", r'''(^|[\s,;({\["])(?:''' + _STANDALONE + r''')=(["'\x60])((?:(?!\2)[^\r\n])+)\2''', shell=True),
    _r("standalone assignment", r'''(^|[\s,;({\["])(?:''' + _STANDALONE + r''')=(["'\x60]?[^\s&#"'\x60<>]+)''', shell=True),
    _r("config quoted assignment", r'''(^|[\s,{])(?:(?:''' + _CONFIG_QUOTED + r''')(?:\s*:\s*|\s+=\s*|=\s*)|[a-z0-9][a-z0-9._-]{0,79}[-_](?:'''
       + _CONFIG_PW + r''')\s*[:=]\s*|[a-z0-9_.-]{1,80}\.(?:''' + _CONFIG + r''')\s*[:=]\s*)(["'\x60])((?:(?!\2)[^\r\n])+)\2''', ic=False),
    _r("config assignment", r'''(^|[\s,{])(?:''' + _CONFIG + r''')(?:\s*:\s*|\s+=\s*|=\s+)([^\s#"'\x60<>]+)''', ic=False),
    _r("config direct assignment", r'''(^|[\s,{])(?:''' + _CONFIG_DIRECT + r''')=([^\s#"'\x60<>]+)''', ic=False),
    _r("config prefixed password", r'''(^|[\s,{])[a-z0-9][a-z0-9._-]{0,79}[-_](?:''' + _CONFIG_PW + r''')\s*[:=]\s*([^\s#"'\x60<>]+)''', ic=False),
    _r("config namespaced assignment", r'''(^|[\s,{])[a-z0-9_.-]{1,80}\.(?:''' + _CONFIG + r''')\s*[:=]\s*([^\s#"'\x60<>]+)''', ic=False),
    "PEM private key",  # a scanner, not a regex: see _pem_matches
    _r("AWS secret access key field", r'''(^|[\s,{])["']?(?:''' + _AWS_FIELD + r''')["']?\s*[:=]\s*(["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\2'''),
]

# VENDOR_TOKEN_REDACT_PATTERNS, in order: (name, source, flags). All are case-insensitive in OpenClaw.
_VENDOR_TABLE: list[tuple[str, str, dict[str, bool]]] = [
    ("OpenAI/Anthropic sk-", r"\b(sk-[A-Za-z0-9_-]{8,})\b", {}),
    ("GitHub ghp_", r"(ghp_[A-Za-z0-9]{10,})", {}),
    ("GitHub fine-grained PAT", r"(github_pat_[A-Za-z0-9_]{10,})", {}),
    ("GitHub gho_", r"(gho_[A-Za-z0-9]{10,})", {}),
    ("GitHub ghu_", r"(ghu_[A-Za-z0-9]{10,})", {}),
    ("GitHub ghs_", r"(ghs_[A-Za-z0-9]{10,})", {}),
    ("GitHub ghr_", r"(ghr_[A-Za-z0-9]{10,})", {}),
    ("GitLab PAT", r"(glpat-[A-Za-z0-9._=\-]{20,})", {}),
    ("GitLab OAuth app secret", r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))", {}),
    ("GitLab deploy token", r"(gldt-[A-Za-z0-9_-]{20,})", {}),
    ("GitLab CI build token", r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})", {}),
    ("GitLab pipeline trigger", r"(glptt-[A-Za-z0-9_-]{40,})", {}),
    ("GitLab feed token", r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))", {}),
    ("GitLab incoming mail", r"(glimt-[A-Za-z0-9_-]{25,})", {}),
    ("GitLab agent", r"(glagent-[A-Za-z0-9_-]{50,})", {}),
    ("GitLab workspace", r"(glwt-[A-Za-z0-9_-]{20,})", {}),
    ("GitLab SCIM/OAuth", r"(glsoat-[A-Za-z0-9_-]{20,})", {}),
    ("GitLab feature flags", r"(glffct-[A-Za-z0-9_-]{20,})", {}),
    ("GitLab runner", r"(glrt-[A-Za-z0-9._-]{20,})", {}),
    ("GitLab runner (routable)", r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})", {}),
    ("GitLab runner registration", r"(GR1348941[A-Za-z0-9_-]{20,})", {}),
    ("GitLab session cookie", r"(_gitlab_session=[A-Za-z0-9%._-]{20,})", {}),
    ("Slack token", r"(xox[baprs]-[A-Za-z0-9-]{10,})", {}),
    ("Slack app token", r"(xapp-[A-Za-z0-9-]{10,})", {}),
    ("Slack webhook", r"(https:\/\/hooks\.slack\.com\/(?:services\/T[A-Z0-9]+\/B[A-Z0-9]+|workflows\/T[A-Z0-9]+\/A[A-Z0-9]+\/[0-9]{17,19})\/[A-Za-z0-9]{20,})", {}),
    ("Discord webhook", r"(https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,})", {}),
    ("Discord bot token", r"discord(?:.|\n|\r){0,40}?\b([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})\b", {}),
    ("Groq", r"(gsk_[A-Za-z0-9_-]{10,})", {}),
    ("Google API key", r"(AIza[0-9A-Za-z\-_]{20,})", {}),
    ("Google OAuth access", r"(ya29\.[0-9A-Za-z_\-./+=]{10,})", {}),
    ("Google OAuth refresh", r"(1//0[0-9A-Za-z_\-./+=]{10,})", {}),
    ("JWT", r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})", {}),
    ("Perplexity", r"(pplx-[A-Za-z0-9_-]{10,})", {}),
    ("fal", r"(fal_[A-Za-z0-9_-]{10,})", {}),
    ("Firecrawl", _IDENT + r"(fc-[A-Za-z0-9]{10,})", {"chunk_unsafe": True}),
    ("Browserbase", r"(bb_live_[A-Za-z0-9_-]{10,})", {}),
    ("Fernet token", _B64 + r"(gAAAA[A-Za-z0-9_=-]{20,})", {"chunk_unsafe": True, "base64_guard": True}),
    ("Stripe live secret", r"(sk_live_[A-Za-z0-9]{10,})", {}),
    ("Stripe test secret", r"(sk_test_[A-Za-z0-9]{10,})", {}),
    ("Stripe restricted", r"(rk_live_[A-Za-z0-9]{10,})", {}),
    ("SendGrid", r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})", {}),
    ("npm", r"(npm_[A-Za-z0-9]{10,})", {}),
    ("PyPI", r"(pypi-[A-Za-z0-9_-]{10,})", {}),
    ("DigitalOcean PAT", r"(dop_v1_[A-Za-z0-9]{10,})", {}),
    ("DigitalOcean OAuth", r"(doo_v1_[A-Za-z0-9]{10,})", {}),
    ("DigitalOcean refresh", r"(dor_v1_[A-Za-z0-9]{10,})", {}),
    ("Doppler", r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})", {}),
    ("Doppler service", r"(dp\.st\.[A-Za-z0-9]{40,44})", {}),
    ("Doppler scoped service", r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})", {}),
    ("Docker Hub", r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})", {}),
    ("Buildkite", r"(bkua_[a-z0-9]{40})", {}),
    ("CircleCI", r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})", {}),
    ("Supabase", r"(sbp_[a-z0-9]{40})", {}),
    ("Databricks", _B64 + r"(dapi[0-9a-f]{32}(?:-\d)?)", {"chunk_unsafe": True, "base64_guard": True}),
    ("Datadog", r"(dd[pw]_[A-Za-z0-9]{36})", {}),
    ("Grafana service account", r"(glsa_[A-Za-z0-9_]{41})", {}),
    ("Grafana cloud", r"(glc_eyJ[A-Za-z0-9+/=]{60,160})", {}),
    ("Netlify", r"(nfp_[A-Za-z0-9_]{36})", {}),
    ("Contentful", r"(CFPAT-[A-Za-z0-9_\-]{40,})", {}),
    ("Atlassian ATCTT3", _B64 + r"(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})", {"chunk_unsafe": True, "base64_guard": True}),
    ("Atlassian ATATT", _B64 + r"(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})", {"chunk_unsafe": True, "base64_guard": True}),
    ("Bitbucket ATBB", _B64 + r"(ATBB[A-Za-z0-9_=.-]{16,})", {"chunk_unsafe": True, "base64_guard": True}),
    ("Bitbucket Data Center", r"(BBDC-[A-Za-z0-9+/@_-]{40,50})", {}),
    ("Heroku", r"(HRKU-AA[A-Za-z0-9_-]{20,})", {}),
    ("HubSpot", r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{12})", {}),
    ("Apify", r"(apify_api_[A-Za-z0-9\-]{20,})", {}),
    ("Fly.io", r"(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})", {}),
    ("Frame.io", r"(fio-u-[A-Za-z0-9_-]{40,})", {}),
    ("am_", r"(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})", {}),
    ("sk_ (generic)", r"(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})", {}),
    ("Tavily", r"(tvly-[A-Za-z0-9]{10,})", {}),
    ("Exa", r"(exa_[A-Za-z0-9]{10,})", {}),
    ("Matrix", r"(syt_[A-Za-z0-9]{10,})", {}),
    ("RetainDB", r"(retaindb_[A-Za-z0-9]{10,})", {}),
    ("hsk-", r"(hsk-[A-Za-z0-9]{10,})", {}),
    ("mem0", r"(mem0_[A-Za-z0-9]{10,})", {}),
    ("brv_", r"(brv_[A-Za-z0-9]{10,})", {}),
    ("xAI", r"(xai-[A-Za-z0-9]{30,})", {}),
    ("Fireworks fw-", _IDENT + r"(fw-[A-Za-z0-9]{30,})", {"chunk_unsafe": True}),
    ("Fireworks fw_", _IDENT + r"(fw_[A-Za-z0-9]{30,})", {"chunk_unsafe": True}),
    ("fpk_", _IDENT + r"(fpk_[A-Za-z0-9]{30,})", {"chunk_unsafe": True}),
    ("AWS access key id", _B64 + r"(AKIA[A-Z0-9]{16})", {"chunk_unsafe": True, "base64_guard": True}),
    ("AWS temporary key id", _B64 + r"(ASIA[A-Z0-9]{16})", {"chunk_unsafe": True, "base64_guard": True}),
    ("Tencent Cloud", r"(AKID[A-Za-z0-9]{10,})", {}),
    ("Alibaba Cloud", r"(LTAI[A-Za-z0-9]{10,})", {}),
    ("Hugging Face", r"(hf_[A-Za-z0-9]{10,})", {}),
    ("Hugging Face org", r"(api_org_[A-Za-z0-9]{20,})", {}),
    ("Replicate", r"(r8_[A-Za-z0-9]{10,})", {}),
    ("Telegram bot token (bot…)", r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b", {"chunk_unsafe": True}),
    ("Telegram bot token", r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b", {"chunk_unsafe": True}),
]
_VENDOR_RULES = [_r(name, source, **flags) for name, source, flags in _VENDOR_TABLE]
assert all(r.any_of or r.all_of for r in _VENDOR_RULES), "every vendor rule has a gate"

_AWS_SCANNER = "AWS secret access key"
# DEFAULT_REDACT_PATTERNS: field rules, vendor rules, then the AWS secret-key scanner.
RULES: list[_Rule | str] = [*_FIELD_RULES, *_VENDOR_RULES, _AWS_SCANNER]
RULE_NAMES: list[str] = [r if isinstance(r, str) else r.name for r in RULES]


# ---------------------------------------------------------------------------------------------
# Unicode helpers for form keys (\p{C} and friends)
# ---------------------------------------------------------------------------------------------

# FORM_BODY_KEY_INVISIBLE_CHARS minus \p{C}, which Python's `re` cannot name and is built below.
_INVISIBLE_EXTRA = "\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\u115f\\u1160\\u3164\\uffa0"


@lru_cache(maxsize=1)
def _category_c_class() -> str:
    """Class body for \\p{C} (Cc, Cf, Cs, Co, Cn), from Python's Unicode database. Built on first use
    (≈0.3 s) because only text with `%`, `+` or non-ASCII next to `=` ever needs it."""
    ranges: list[tuple[int, int]] = []
    start = -1
    # Planes 4-13 are unassigned (Cn) and planes 15-16 private use (Co): all of category C, so
    # only the other planes are looked up one by one (3x faster than scanning every code point).
    for cp in (*range(0x40000), *range(0xE0000, 0xF0000)):
        is_c = unicodedata.category(chr(cp))[0] == "C"
        if is_c and start < 0:
            start = cp
        elif not is_c and start >= 0:
            ranges.append((start, cp - 1))
            start = -1
        if cp == 0x3FFFF and start < 0:
            start = 0x40000  # the skipped planes 4-13 open a category-C run
    if start >= 0:
        ranges.append((start, 0x10FFFF))
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@lru_cache(maxsize=1)
def _form_regexes() -> dict[str, re.Pattern[str]]:
    inv = _category_c_class() + _INVISIBLE_EXTRA
    key = rf"[{inv}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|[{inv}+])*"
    form_value = r"[^&\s<>]*"
    pair = f"{key}={form_value}"
    flags = re.ASCII
    return {
        "inv": re.compile(f"[{inv}+]"),
        "url_pair": re.compile(_js(rf"([?&])({key})=([^&#\s<>]*)"), flags),
        "form_full": re.compile(_js(rf"^{pair}(?:&{pair})+$"), flags),
        "form_sub": re.compile(_js(r"""(^|[\s:({\[,="'`])(""" + pair + "(?:&" + pair + ")+)"), flags),
        "encoded_pair": re.compile(_js(r"""(^|[\s:({\[,="'`&])(""" + key + ")=(" + form_value + ")"), flags),
        "context_pair": re.compile(_js(r"""(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*(["'`]?))(""" + key + ")=(" + form_value + r""")(["'`]?)"""),
                                   flags | re.IGNORECASE),
        "prefilter_pct": re.compile(f"%[0-9A-Fa-f]{{2}}[{inv}+A-Za-z0-9_%.-]*="),
        "eq_run": re.compile(f"(?<![{inv}+A-Za-z0-9_%.-])[{inv}+A-Za-z0-9_%.-]+="),
    }


def _strip_separators(s: str) -> str:
    """Remove [\\p{C}\\p{Z}\\u115F\\u1160\\u3164\\uFFA0+] (URL_QUERY_NAME_SEPARATOR_RE)."""
    if s.isascii():
        return "".join(c for c in s if c != "+" and c != " " and not (c < " " or c == "\x7f"))
    return "".join(c for c in s if not (c == "+" or c in "\u115f\u1160\u3164\uffa0" or unicodedata.category(c)[0] in "CZ"))


_PCT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _decode_uri_component(s: str) -> str:
    """JS decodeURIComponent: raises ValueError on a stray `%` or bytes that are not UTF-8."""
    if "%" not in s:
        return s
    out, pos = [], 0
    for m in _PCT_RUN.finditer(s):
        if "%" in s[pos : m.start()]:
            raise ValueError("malformed escape")
        out.append(s[pos : m.start()])
        out.append(bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8"))
        pos = m.end()
    if "%" in s[pos:]:
        raise ValueError("malformed escape")
    out.append(s[pos:])
    return "".join(out)


_URL_SECRET_PARAMS = frozenset(
    "token key api_key apikey secret access_token auth_token password pass passwd auth jwt session id_token code "
    "client_secret app_secret hook_token refresh_token signature x_amz_signature x_amz_security_token private_key "
    "credential authorization sig x_api_key x_access_token x_auth_token".split()
)
_BODY_SECRET_KEYS = frozenset(
    "access_token auth_token awssecretaccesskey aws_secret_access_key hook_token refresh_token id_token token api_key "
    "apikey client_secret app_secret password pass passwd auth jwt session code signature x_amz_signature "
    "x_amz_security_token secret secretaccesskey credential private_key authorization key card_number card_cvc card_cvv "
    "cvc cvv security_code payment_credential shared_payment_token".split()
)
_SCOPED_TOKEN_PARAM = re.compile(r"(?:^|_)token(?:_[a-f0-9]{16,})?\Z")


def _is_sensitive_url_param(name: str) -> bool:
    """isSensitiveUrlQueryParamName: decodes up to 8 nested levels; undecodable `%` counts as sensitive."""
    current = _strip_separators(name)
    unresolved = False
    for _ in range(9):
        try:
            decoded = _strip_separators(_decode_uri_component(current))
        except ValueError:
            unresolved = "%" in current
            break
        if decoded == current:
            break
        current = decoded
    else:
        unresolved = "%" in current
    value = current.strip().lower().replace("-", "_")
    return unresolved or value in _URL_SECRET_PARAMS or bool(_SCOPED_TOKEN_PARAM.search(value))


def _is_sensitive_body_key(key: str) -> bool:
    if _is_sensitive_url_param(key):
        return True
    stripped = _strip_separators(key)
    try:
        normalized = _strip_separators(_decode_uri_component(stripped)).lower().replace("-", "_")
    except ValueError:
        normalized = stripped.lower().replace("-", "_")
    return normalized in _BODY_SECRET_KEYS


# ---------------------------------------------------------------------------------------------
# Structural passes: URL query values and form bodies (redactAssignmentValues / redactFormBody)
# ---------------------------------------------------------------------------------------------

_HEX_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _redact_assignments(text: str, kind: str) -> str:
    if not text or (kind == "url" and "?" not in text):
        return text
    rx = _form_regexes()
    if kind == "encoded" and "%" not in text and not rx["inv"].search(text):
        return text
    if kind == "context" and ("=" not in text or not ("body" in text.lower() or "form" in text.lower())):
        return text  # (also needs `=` and "body"/"form": every match does; only a shortcut)
    spans: list[tuple[int, int, str]] = []

    def visit_pair(key: str, token: str, value_offset: int) -> None:
        if kind == "encoded" and not (_HEX_ESCAPE.search(key) or rx["inv"].search(key)):
            return
        if not _is_sensitive_body_key(key):
            return
        maskable, _, mask_end = _split_secret_value(token)
        spans.append((value_offset, value_offset + mask_end, _mask_token(maskable) if kind == "url" else "***"))

    if kind == "form":
        cursor = 0
        for pair in text.split("&"):
            eq = pair.find("=")
            if eq >= 0:
                visit_pair(pair[:eq], pair[eq + 1 :], cursor + eq + 1)
            cursor += len(pair) + 1
    else:
        pattern = rx["url_pair"] if kind == "url" else rx["encoded_pair"] if kind == "encoded" else rx["context_pair"]
        key_group = 3 if kind == "context" else 2
        for m in pattern.finditer(text):
            key = m.group(key_group) or ""
            visit_pair(key, m.group(key_group + 1) or "", m.start() + len(m.group(1) or "") + len(key) + 1)
    if not spans:
        return text
    parts, cursor = [], 0
    for start, end, replacement in spans:
        parts.append(text[cursor:start])
        parts.append(replacement)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _redact_form_body_line(text: str) -> str:
    if not text:
        return text
    redacted = _redact_assignments(_redact_assignments(text, "encoded"), "context")
    if "&" not in redacted:
        return redacted
    rx = _form_regexes()
    if rx["form_full"].match(redacted):
        return _redact_assignments(redacted, "form")

    def sub(m: re.Match[str]) -> str:
        body = _redact_assignments(m.group(2), "form")
        return m.group(0) if body == m.group(2) else m.group(1) + body

    redacted = rx["form_sub"].sub(sub, redacted)
    return _redact_assignments(_redact_assignments(redacted, "encoded"), "context")


_LINE_BREAK_SPLIT = re.compile(r"(\r\n|\r|\n)")


def _redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    if "\n" in text or "\r" in text:
        return "".join(seg if seg in ("\r\n", "\r", "\n") else _redact_form_body_line(seg) for seg in _LINE_BREAK_SPLIT.split(text))
    return _redact_form_body_line(text)


# ---------------------------------------------------------------------------------------------
# Structured HTTP auth parameters (findStructuredAuthParamRanges), e.g. Digest/AWS4 headers
# ---------------------------------------------------------------------------------------------

_STRUCTURED_AUTH_HEADER = _compile(
    _HEADER_BOUNDARY + "(?:Proxy-)?Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE + "(" + _AUTH_SCHEME + ")" + _WS_REQ, True
)
_AUTH_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_AWS_SCOPE_VALUE = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~:/-]+")
_SIGNED_HEADERS_VALUE = re.compile(r":?[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:;:?[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")
_HEADER_NAME_CHAR = re.compile(r"[A-Za-z0-9_-]")


def _ch(s: str, i: int) -> str:
    """JS `s[i]`: undefined (here "") outside the string, including negative indexes."""
    return s[i] if 0 <= i < len(s) else ""


def _skip_hws(v: str, i: int) -> int:
    while _ch(v, i) in (" ", "\t") and _ch(v, i):
        i += 1
    return i


def _serialized_line_end(v: str, i: int) -> int | None:
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    if slashes == 0:
        return None
    if _ch(v, i) == "n":
        return i + 1
    if _ch(v, i) != "r":
        return None
    i += 1
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    return i + 1 if slashes > 0 and _ch(v, i) == "n" else None


def _serialized_tab_end(v: str, i: int) -> int | None:
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    return i + 1 if slashes > 0 and _ch(v, i) == "t" else None


def _skip_auth_ws(v: str, i: int) -> int:
    while True:
        i = _skip_hws(v, i)
        tab = _serialized_tab_end(v, i)
        if tab is not None:
            i = tab
            continue
        if _ch(v, i) == "\r" and _ch(v, i + 1) == "\n":
            line_end: int | None = i + 2
        elif _ch(v, i) == "\n":
            line_end = i + 1
        else:
            line_end = _serialized_line_end(v, i)
        if line_end is None or (_ch(v, line_end) not in (" ", "\t") or not _ch(v, line_end)) and _serialized_tab_end(v, line_end) is None:
            return i
        i = line_end


def _auth_param_name(v: str, i: int) -> tuple[str, int] | None:
    m = _AUTH_TOKEN.match(v, i) if i <= len(v) else None
    return (m.group(0).lower(), m.end()) if m else None


def _is_auth_header_start(v: str, i: int) -> bool:
    prev = _ch(v, i - 1)
    serialized_boundary = False
    if prev in ("n", "r") and prev:
        j, slashes = i - 2, 0
        while slashes < 64 and _ch(v, j) == "\\":
            slashes += 1
            j -= 1
        serialized_boundary = slashes > 0
    if not serialized_boundary and prev and _HEADER_NAME_CHAR.match(prev):
        return False
    candidate = v[i : i + 19].lower()
    name = "proxy-authorization" if candidate == "proxy-authorization" else "authorization" if candidate.startswith("authorization") else None
    if name is None:
        return False
    cursor, slashes = i + len(name), 0
    while slashes < 64 and _ch(v, cursor) == "\\":
        slashes += 1
        cursor += 1
    if _ch(v, cursor) in ("\"", "'") and _ch(v, cursor):
        cursor += 1
    elif slashes > 0:
        return False
    cursor = _skip_hws(v, cursor)
    return _ch(v, cursor) in (":", "=") and bool(_ch(v, cursor))


def _next_auth_param_start(v: str, start: int) -> int | None:
    cursor = start
    while True:
        cursor = _skip_auth_ws(v, cursor)
        if cursor > start and _is_auth_header_start(v, cursor):
            return None
        if cursor >= len(v) or v[cursor] in "\r\n;":
            return None
        if v[cursor] == ",":
            cursor += 1
            continue
        param = _auth_param_name(v, cursor)
        if param:
            eq = _skip_auth_ws(v, param[1])
            if _ch(v, eq) == "=" and _ch(v, eq + 1) != "=":
                return cursor
        while cursor < len(v):
            ws_end = _skip_auth_ws(v, cursor)
            if ws_end > cursor:
                cursor = ws_end
                continue
            if cursor > start and _is_auth_header_start(v, cursor):
                return None
            c = v[cursor]
            if c in "\r\n;":
                return None
            cursor += 1
            if c == ",":
                break


def _auth_field_end(v: str, start: int) -> int:
    cursor = start
    while cursor < len(v):
        ws_end = _skip_auth_ws(v, cursor)
        if ws_end > cursor:
            cursor = ws_end
            continue
        if cursor > start and _is_auth_header_start(v, cursor):
            break
        if v[cursor] in "\r\n;\\\"'}]":
            break
        cursor += 1
    return cursor


def _auth_param_value_end(v: str, start: int, aws_scope: bool, signed_headers: bool) -> int | None:
    esc = 0
    while _ch(v, start + esc) == "\\":
        esc += 1
    escaped_quotes = esc > 0 and _ch(v, start + esc) == "\""
    quote = _ch(v, start) if _ch(v, start) in ("\"", "'") and _ch(v, start) else None
    if quote or escaped_quotes:
        cursor = start + (esc + 1 if escaped_quotes else 1)
        while cursor < len(v):
            c = v[cursor]
            if c in "\r\n":
                ws_end = _skip_auth_ws(v, cursor)
                if ws_end == cursor:
                    break
                cursor = ws_end
                continue
            if escaped_quotes and c == "\\":
                slash_end = cursor + 1
                while _ch(v, slash_end) == "\\":
                    slash_end += 1
                if _ch(v, slash_end) == "\"":
                    if (slash_end - cursor) % (2 * (esc + 1)) == esc:
                        return slash_end + 1
                    cursor = slash_end + 1
                    continue
                cursor = slash_end
                continue
            if not escaped_quotes and c == "\\" and cursor + 1 < len(v):
                cursor += 2
                continue
            if not escaped_quotes and c == quote:
                return cursor + 1
            cursor += 1
        return cursor if cursor > start + 1 else None
    if signed_headers:
        m = _SIGNED_HEADERS_VALUE.match(v, start) if start <= len(v) else None
        if not m:
            return None
        nxt = _ch(v, m.end())
        return m.end() if nxt in ("", ",", " ", "\t", "\r", "\n") else None
    m = (_AWS_SCOPE_VALUE if aws_scope else _AUTH_TOKEN).match(v, start) if start <= len(v) else None
    return m.end() if m else None


def _structured_auth_ranges(v: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for header in _STRUCTURED_AUTH_HEADER.finditer(v):
        scheme = (header.group(2) or "").lower()
        cursor = header.end()
        range_start = range_end = cursor
        direct = _auth_param_name(v, cursor)
        direct_eq = _skip_auth_ws(v, direct[1]) if direct else None
        if not direct or direct_eq is None or _ch(v, direct_eq) != "=" or _ch(v, direct_eq + 1) == "=":
            if _ch(v, _skip_auth_ws(v, cursor)) != "," and not (scheme in ("digest", "hawk") or scheme.startswith("aws4-")):
                continue
            first = _next_auth_param_start(v, cursor)
            if first is None:
                continue
            cursor = first
        while True:
            param = _auth_param_name(v, cursor)
            if not param:
                break
            cursor = _skip_auth_ws(v, param[1])
            if _ch(v, cursor) != "=":
                break
            cursor = _skip_auth_ws(v, cursor + 1)
            value_end = _auth_param_value_end(v, cursor, scheme.startswith("aws4-") and param[0] == "credential", param[0] == "signedheaders")
            if value_end is None:
                nxt = _next_auth_param_start(v, cursor)
                if nxt is not None:
                    cursor = nxt
                    continue
                range_end = max(range_end, _auth_field_end(v, cursor))
                break
            range_end = value_end
            sep = _skip_auth_ws(v, value_end)
            if _ch(v, sep) != ",":
                if _ch(v, sep) not in ("", "\r", "\n", ";", "\\", "\"", "'", "}", "]"):
                    nxt = _next_auth_param_start(v, sep)
                    if nxt is not None:
                        cursor = nxt
                        continue
                    range_end = max(range_end, _auth_field_end(v, sep))
                break
            nxt = _next_auth_param_start(v, sep + 1)
            if nxt is None:
                break
            cursor = nxt
        if range_end > range_start:
            ranges.append((range_start, range_end))
    return ranges


def _redact_structured_auth(text: str) -> str:
    ranges = _structured_auth_ranges(text)
    if not ranges:
        return text
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts, cursor = [], 0
    for start, end in merged:
        parts.append(text[cursor:start])
        parts.append("***")
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Scanners: PEM blocks and AWS secret access keys
# ---------------------------------------------------------------------------------------------


def _pem_delimiters(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of `-----BEGIN … PRIVATE KEY-----` / `-----END …-----` (case-insensitive)."""
    phase, dashes, keyword, kw_off, start, suffix = "search", 0, "BEGIN ", 0, 0, ""
    n = len(text)
    i = 0
    while i < n:
        if phase == "search" and dashes == 0:
            i = text.find("-", i)
            if i < 0:
                return
        c = text[i]
        if "a" <= c <= "z":
            c = c.upper()
        if phase == "search":
            if c == "-":
                dashes = min(5, dashes + 1)
            elif dashes == 5 and c in ("B", "E"):
                phase, keyword, kw_off, start = "keyword", ("BEGIN " if c == "B" else "END "), 1, i - 5
            else:
                dashes = 0
        elif phase == "keyword":
            if c != keyword[kw_off]:
                phase, dashes, suffix = "search", (1 if c == "-" else 0), ""
            else:
                kw_off += 1
                if kw_off == len(keyword):
                    phase, suffix = "label", ""
        elif phase == "label":
            if "A" <= c <= "Z" or c == " ":
                suffix = (suffix + c)[-11:]
            elif c == "-" and suffix == "PRIVATE KEY":
                phase, dashes = "close", 1
            else:
                phase, dashes, suffix = "search", (1 if c == "-" else 0), ""
        else:  # close
            if c != "-":
                phase, dashes, suffix = "search", 0, ""
            else:
                dashes += 1
                if dashes == 5:
                    phase, suffix = "search", ""  # dashes stays 5, as in OpenClaw
                    yield ("begin" if keyword == "BEGIN " else "end", start, i + 1)
        i += 1


def _pem_matches(text: str) -> Iterator[tuple[int, int]]:
    if "-----" not in text:
        return
    open_block: tuple[int, int] | None = None
    match_end = 0
    for kind, start, end in _pem_delimiters(text):
        if open_block is None:
            if kind == "begin" and start >= match_end:
                open_block = (start, end)
            continue
        if kind != "end" or start <= open_block[1]:
            continue
        block_start = open_block[0]
        open_block = None
        match_end = end
        if end > block_start:
            yield block_start, end


def _is_aws_char(c: str) -> bool:
    return bool(c) and (("A" <= c <= "Z") or ("a" <= c <= "z") or ("0" <= c <= "9") or c in "/+=")


_AWS_VALUE = re.compile(r"(?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])"
                        r"(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40}")
_AWS_RUN = re.compile(r"[A-Za-z0-9/+=]{40}")
_AWS_CLOSERS = {"\"": "\"", "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}"}
_AWS_SCHEME_CHAR = re.compile(r"[A-Za-z0-9+.-]")


def _could_match_aws(text: str) -> bool:
    return len(text) >= 40 and _AWS_RUN.search(text) is not None and _AWS_VALUE.search(text) is not None


class _Url:
    __slots__ = ("start", "end", "authority_end", "port_start", "port_valid", "has_at", "query_or_fragment", "closing", "closing_escape_depth")

    def __init__(self, start: int, end: int, closing: str | None, closing_escape_depth: int) -> None:
        self.start, self.end = start, end
        self.authority_end = self.port_start = -1
        self.port_valid, self.has_at, self.query_or_fragment = True, False, False
        self.closing, self.closing_escape_depth = closing, closing_escape_depth


def _aws_secret_matches(text: str) -> Iterator[tuple[int, int]]:
    """A 40-char mixed-case base64-ish run standing alone, not inside a public URL, not base64 data."""
    if not _could_match_aws(text):
        return
    n = len(text)
    run_start = scheme_start = -1
    url: _Url | None = None
    backslashes = 0
    runs: list[tuple[int, int, int, _Url | None]] = []
    for index in range(n + 1):
        c = text[index] if index < n else ""
        whitespace = index == n or _JS_WS_RE.match(c) is not None
        escape_depth = backslashes
        backslashes = backslashes + 1 if c == "\\" else 0
        if c and _is_aws_char(c):
            if run_start == -1:
                run_start = index
        elif run_start != -1:
            if index - run_start == 40:
                runs.append((run_start, index, run_start, url))
            elif index - run_start > 40 and c == "@" and text[index - 41] == "/":
                runs.append((index - 40, index, run_start, url))
            run_start = -1
        if whitespace:
            if url is not None:
                url.end = min(url.end, index)
            for r_start, r_end, origin, ctx in runs:
                public = ctx is not None and not ctx.has_at and ctx.port_valid and (
                    ctx.port_start == -1 or (ctx.end if ctx.authority_end == -1 else ctx.authority_end) > ctx.port_start + 1)
                before, after = _ch(text, r_start - 1), _ch(text, r_end)
                slash_credential = r_start != origin
                port_credential = (ctx is not None and ctx.port_start != -1 and origin == ctx.port_start + 1
                                   and ctx.authority_end > origin and r_end > ctx.authority_end and after == "@")
                if ((not slash_credential and (before == "_" or _is_aws_char(before))) or after == "_"
                        or text[origin - 8 : origin] == ";base64,"  # JS slice with a negative start counts from the end, as here
                        or (public and ctx is not None and not port_credential and r_start >= ctx.start and r_end <= ctx.end)):
                    continue
                if _AWS_VALUE.match(text, r_start, r_end):
                    yield r_start, r_end
            runs.clear()
            scheme_start = -1
            url = None
            continue
        if url is not None and index >= url.start:
            if c == url.closing and escape_depth == url.closing_escape_depth:
                url.end = min(url.end, index)
                url = None
            else:
                if c in "?#\"'<>`|()[]{}":
                    url.end = min(url.end, index)
                url.query_or_fragment = url.query_or_fragment or c in "?#"
                if url.authority_end == -1:
                    url.has_at = url.has_at or c == "@"
                    if c in "/?#":
                        url.authority_end = index
                    elif index < url.end:
                        if c == ":":
                            url.port_valid = url.port_valid and url.port_start == -1
                            url.port_start = index
                        elif url.port_start != -1 and not ("0" <= c <= "9"):
                            url.port_valid = False
        if _AWS_SCHEME_CHAR.match(c):
            if scheme_start == -1:
                scheme_start = index
        else:
            if ((url is None or (index >= url.end and not url.query_or_fragment)) and c == ":" and text.startswith("//", index + 1)
                    and scheme_start != -1 and text[scheme_start].isascii() and text[scheme_start].isalpha()):
                opening = _ch(text, scheme_start - 1)
                depth, j = 0, scheme_start - 2
                while j >= 0 and text[j] == "\\":
                    depth += 1
                    j -= 1
                url = _Url(index + 3, n, _AWS_CLOSERS.get(opening) if opening else None, depth)
            scheme_start = -1


# ---------------------------------------------------------------------------------------------
# Applying a rule (prepareRedactionCapture / redactMatch / replacePatternBounded)
# ---------------------------------------------------------------------------------------------

_ENV_KEY_IN_MATCH = re.compile(r"\b([A-Z_][A-Z0-9_]*)\b[" + _JS_WS + r"]*[=:]", re.ASCII)
_SHELL_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
_SHELL_BARE = re.compile(r"\$([A-Z_][A-Z0-9_]*)\Z")
_SHELL_BRACED = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}\Z")
_EMPTY_EXPANSION_TAIL = re.compile(r"[-=?+]\}\Z")


def _is_shell_reference(key: str, value: str) -> bool:
    """`API_KEY=$API_KEY` / `${API_KEY}` is a reference to itself, not a secret."""
    if not _SHELL_NAME.match(key):
        return False
    m = _SHELL_BARE.match(value) or _SHELL_BRACED.match(value)
    return m is not None and m.group(1) == key


def _replacement(rule: _Rule | str, whole: str, token: str) -> str | None:
    """What replaces the captured token, or None to leave the match alone."""
    if token == "***":
        return None
    form_aware = isinstance(rule, _Rule) and rule.form_aware
    secret, suffix = _split_form_aware(token) if form_aware else (token, "")
    if _split_secret_value(secret)[0] == "***":
        return None
    if isinstance(rule, _Rule) and rule.shell:
        key = _ENV_KEY_IN_MATCH.search(whole)
        if (key and _is_shell_reference(key.group(1), token)) or _EMPTY_EXPANSION_TAIL.match(token):
            return None
        return _mask_token(token)
    return _mask_secret_value(secret) + suffix


def _redact_match(rule: _Rule | str, m: re.Match[str]) -> str:
    whole = m.group(0)
    if "PRIVATE KEY-----" in whole:  # any rule whose match holds a PEM header masks the whole match
        return _redact_pem_block(whole)
    last = 0  # selectSecretCapture: the last non-empty capture group is the secret
    for g in range(1, (m.re.groups or 0) + 1):
        if m.group(g):
            last = g
    if last == 0 or m.group(last) == whole:
        token, rel = whole, 0
    else:
        token, rel = m.group(last), m.start(last) - m.start()
    replacement = _replacement(rule, whole, token)
    if replacement is None:
        return whole
    return whole[:rel] + replacement + whole[rel + len(token) :]


# Case-insensitive like the rest of its (JS "gi") source.
_BASE64_BEFORE = re.compile(r";base64,[A-Za-z0-9+/=]*\Z", re.ASCII | re.IGNORECASE)


def _sub_rule(rule: _Rule, text: str) -> str:
    if not rule.base64_guard:
        return rule.regex.sub(lambda m: _redact_match(rule, m), text)
    parts, last, pos = [], 0, 0
    while pos <= len(text):
        m = rule.regex.search(text, pos)
        if m is None:
            break
        lookbehind_at = m.end(1)
        if _BASE64_BEFORE.search(text, 0, lookbehind_at):
            pos = m.start() + 1  # the JS lookbehind failed here: the engine retries one position later
            continue
        parts.append(text[last : m.start()])
        parts.append(_redact_match(rule, m))
        last = m.end()
        pos = m.end() if m.end() > m.start() else m.end() + 1
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


_CHUNK_THRESHOLD = 32768  # REDACT_REGEX_CHUNK_THRESHOLD (UTF-16 units)
_CHUNK_SIZE = 16384  # REDACT_REGEX_CHUNK_SIZE


def _utf16_chunks(text: str) -> list[tuple[int, int]]:
    """Code-point slices matching JS `text.slice(k*16384, (k+1)*16384)` (a split pair stays split in JS;
    here the astral character goes to the earlier chunk, the nearest Python can do)."""
    if text.isascii():
        return [(i, min(i + _CHUNK_SIZE, len(text))) for i in range(0, len(text), _CHUNK_SIZE)]
    bounds, start, units = [], 0, 0
    for i, c in enumerate(text):
        units += 2 if ord(c) > 0xFFFF else 1
        if units >= _CHUNK_SIZE:
            bounds.append((start, i + 1))
            start, units = i + 1, 0
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds


def _apply_rule(rule: _Rule, text: str) -> str:
    # OpenClaw runs most regexes chunk-wise on long text to bound their cost; a match that would
    # straddle a 16 384-unit boundary is then missed (or cut) there too, so do the same.
    if rule.chunk_unsafe or _utf16_len(text) <= _CHUNK_THRESHOLD:
        return _sub_rule(rule, text)
    return "".join(_sub_rule(rule, text[a:b]) for a, b in _utf16_chunks(text))


def _apply_scanner(name: str, text: str, spans: Iterator[tuple[int, int]]) -> str:
    parts, last = [], 0
    for start, end in spans:
        whole = text[start:end]
        if "PRIVATE KEY-----" in whole:
            replacement = _redact_pem_block(whole)
        else:
            # A lower-case PEM header or an AWS key: the whole match is the token (hinted mask).
            hinted = _replacement(name, whole, whole)
            replacement = whole if hinted is None else hinted
        parts.append(text[last:start])
        parts.append(replacement)
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Prefilter (DEFAULT_REDACT_PREFILTER_RE): text that cannot match any rule is returned untouched
# ---------------------------------------------------------------------------------------------

_PREFILTER = re.compile(_js("(?:" + "|".join([
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT|PRIVATE KEY",
    r"security[-_]?code|\bpass\s*[=:]|\bpassphrase\s*[=:]|_(?:password|pass|passphrase|passwd)\s*[=:]|jwt\s*[=:]|session=|code=|\bsig\s*=",
    r"\bBearer\s+",
    r":\/\/[^\/\s:@]*:[^\s@]+@",
    r"sk-|gh[opsur]_|github_pat_|glpat-|gloas-|gldt-|glcbt-|glptt-|glft-|glimt-|glagent-|glwt-|glsoat-|glffct-|glrt-|glrtr-"
    r"|GR1348941|_gitlab_session=|xox[baprs]-|xapp-|hooks\.slack\.com|discord|gsk_|AIza|ya29\.|1\/\/0|eyJ|pplx-|fal_|fc-"
    r"|bb_live_|gAAAA|[sr]k_(?:live|test)_|SG\.|npm_|pypi-|do[opr]_v1_|dp\.(?:ct|pt|sa|st|scim|audit)\.|dckr_|bkua_|CCIPAT_"
    r"|sbp_|dapi[0-9a-f]|dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-|pat-(?:eu|na)1-|apify_api_|FlyV1|fio-u-"
    r"|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-|fw_|fpk_",
    r"(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    r"A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    r"\bbot\d{6,}:|\b\d{6,}:[A-Za-z0-9_-]{20,}",
]) + ")"), re.ASCII | re.IGNORECASE)
_FORM_KEY_CHAR = re.compile(r"[A-Za-z0-9_%.-]")


def _could_match(text: str) -> bool:
    if _PREFILTER.search(text) or _could_match_aws(text):
        return True
    # The last two prefilter branches (percent-encoded or invisible-char-obfuscated form keys)
    # need \p{C} and a variable-length lookbehind; they are evaluated here without regex lookbehind.
    if "=" not in text or (text.isascii() and "+" not in text and "%" not in text and not any(c < " " or c == "\x7f" for c in text)):
        return False
    rx = _form_regexes()
    if "%" in text and rx["prefilter_pct"].search(text):
        return True
    # `=(?<=(?:\+|INV)(?:[INV+]*K)+[INV+]*=)|=(?<=K[INV+]+=)`: the run of key/invisible characters
    # right before some `=` holds both a key character and an invisible character or `+`.
    for m in rx["eq_run"].finditer(text):
        run = m.group(0)[:-1]
        if _FORM_KEY_CHAR.search(run) and rx["inv"].search(run):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------


def redact_secrets(text: str) -> str:
    """Mask secrets in one transcript message, as OpenClaw 2026.9.6's memory indexer does.

    Same as OpenClaw's `redactSensitiveText(text, {mode: "tools"})` with the built-in patterns,
    minus its runtime registry of config secret values (see the module docstring).
    """
    if not text or not _could_match(text):
        return text
    low = text.lower()
    if "authorization" in low:
        text = _redact_structured_auth(text)
    if "?" in text and "=" in text:
        text = _redact_assignments(text, "url")
    out = _redact_form_body(text)
    low = out.lower() if out is not text else low
    for rule in RULES:
        if isinstance(rule, _Rule):
            hay = out if rule.cs else low
            if any(n not in hay for n in rule.all_of) or (rule.any_of and not any(n in hay for n in rule.any_of)):
                continue
            new = _apply_rule(rule, out)
            if new is not out and new != out:
                out, low = new, new.lower()
        elif rule == _AWS_SCANNER:
            out = _apply_scanner(rule, out, _aws_secret_matches(out))
        else:
            out = _apply_scanner(rule, out, _pem_matches(out))
    return out

