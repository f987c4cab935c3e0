"""The pattern tables (src/logging/redact-patterns.ts): key lists, field rules, vendor token rules, in OpenClaw's order.

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .jsregex import _compile

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
    chunk_unsafe: bool = False  # never applied chunk-wise on long text (see apply._apply_rule)
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
VENDOR_RULES = _VENDOR_RULES  # the token shapes alone (redact.apply.mask_token_shapes)
assert all(r.any_of or r.all_of for r in _VENDOR_RULES), "every vendor rule has a gate"

_AWS_SCANNER = "AWS secret access key"
# DEFAULT_REDACT_PATTERNS: field rules, vendor rules, then the AWS secret-key scanner.
RULES: list[_Rule | str] = [*_FIELD_RULES, *_VENDOR_RULES, _AWS_SCANNER]
RULE_NAMES: list[str] = [r if isinstance(r, str) else r.name for r in RULES]
