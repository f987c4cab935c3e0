"""Applying the rules in order (prepareRedactionCapture / redactMatch / replacePatternBounded), the prefilter and `redact_secrets`.

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .auth_params import _redact_structured_auth
from .forms import _form_regexes, _redact_assignments, _redact_form_body
from .jsregex import _JS_WS, _js
from .masking import _mask_secret_value, _mask_token, _redact_pem_block, _split_form_aware, _split_secret_value, _utf16_len
from .patterns import _AWS_SCANNER, RULES, VENDOR_RULES, _Rule
from .scanners import _aws_secret_matches, _could_match_aws, _pem_matches

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
    minus its runtime registry of config secret values (see the package docstring).
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


def mask_token_shapes(text: str, replacement: str) -> str:
    """Every vendor token shape of the redactor (GitHub, AWS key ids, Hugging Face, Slack, …) replaced
    whole by `replacement`, wherever it stands (glued to a word by `_` too).

    For the fields of an answer that are not prose (a note's path, its citation): `redact_secrets`
    masks these in a note's text, so a note *named* after one must not show it in its path. Only the
    token shapes: the field rules (`password: …`) are about prose and would mangle a file name.
    """
    if not text:
        return text
    low = text.lower()
    for rule in VENDOR_RULES:
        hay = text if rule.cs else low
        if any(n not in hay for n in rule.all_of) or (rule.any_of and not any(n in hay for n in rule.any_of)):
            continue

        def whole(m: re.Match[str]) -> str:
            group = m.lastindex or 0  # the token is each rule's last group; what precedes it is context
            return m.group(0)[: m.start(group) - m.start()] + replacement + m.group(0)[m.end(group) - m.start():]

        new = rule.regex.sub(whole, text)
        if new != text:
            text, low = new, new.lower()
    return text
