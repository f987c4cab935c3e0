"""Turning a user's query into FTS5 MATCH expressions and keyword lists.

`build_fts_query` is OpenClaw's exact function (AND of quoted Unicode word runs, spec §6.3). The
memtui variants add two fixes its users asked for: CJK runs become phrases of overlapping bigrams
(matching how the index segments them), and an OR form for when AND finds nothing (#15226).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..textutil import WORD_RE, cjk_bigrams, cjk_runs, contains_cjk, is_cjk_char


def contains_cjk_fast(text: str) -> bool:
    return bool(cjk_runs(text)) if not text.isascii() else False

STOP_EN = frozenset("""a an the this that these those i me my we our you your he she it they them is are was were be been
being have has had do does did will would could should can may might in on at to for of with by from about into through
during before after above below between under over and or but if then because as while when where what which who how why
yesterday today tomorrow earlier later recently ago just now thing things stuff something anything everything nothing
please help find show get tell give""".split())
STOP_ZH = frozenset("""我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 的 了 着 过 得 地 吗 呢 吧 啊 呀 嘛 啦
是 有 在 被 把 给 让 用 到 去 来 做 说 看 找 想 要 能 会 可以 和 与 或 但 但是 因为 所以 如果
虽然 而 也 都 就 还 又 再 才 只 之前 以前 之后 以后 刚才 现在 昨天 今天 明天 最近 东西 事情 事
什么 哪个 哪些 怎么 为什么 多少 请 帮 帮忙 告诉""".split())
STOP_ES = frozenset("""el la los las un una unos unas este esta ese esa yo me mi nosotros nosotras tu tus usted ustedes ellos
ellas de del a en con por para sobre entre y o pero si porque como es son fue fueron ser estar haber tener hacer ayer hoy
mañana antes despues después ahora recientemente que qué cómo cuando cuándo donde dónde porqué favor ayuda""".split())
STOP_PT = frozenset("""o a os as um uma uns umas este esta esse essa eu me meu minha nos nós você vocês ele ela eles elas de do
da em com por para sobre entre e ou mas se porque como é são foi foram ser estar ter fazer ontem hoje amanhã antes depois
agora recentemente que quê quando onde porquê favor ajuda""".split())
STOP_JA = frozenset("""これ それ あれ この その あの ここ そこ あそこ する した して です ます いる ある なる できる の こと
もの ため そして しかし また でも から まで より だけ なぜ どう 何 いつ どこ 誰 どれ 昨日 今日 明日
最近 今 さっき 前 後""".split())
STOP_WORDS = STOP_EN | STOP_ZH | STOP_ES | STOP_PT | STOP_JA

_SPLIT = re.compile(r"[\s\W]+", re.UNICODE)


def query_tokens(query: str) -> list[str]:
    """Maximal runs of letters, digits and underscore in any script (OpenClaw's tokenisation)."""
    return [t.replace('"', "") for t in WORD_RE.findall(query) if t.strip()]


def build_fts_query(query: str) -> str | None:
    """OpenClaw parity: `"a" AND "b"`; None when the query has no word characters."""
    tokens = query_tokens(query)
    return " AND ".join(f'"{t}"' for t in tokens) if tokens else None


def _split_mixed(token: str) -> list[tuple[str, bool]]:
    """Split a token into (piece, is_cjk) runs: 'API鉴权' → [('API', False), ('鉴权', True)]."""
    pieces: list[tuple[str, bool]] = []
    for ch in token:
        cjk = is_cjk_char(ch)
        if pieces and pieces[-1][1] == cjk:
            pieces[-1] = (pieces[-1][0] + ch, cjk)
        else:
            pieces.append((ch, cjk))
    return pieces


def _term(piece: str, cjk: bool) -> str:
    if not cjk:
        return f'"{piece}"'
    grams = cjk_bigrams(piece)
    # A phrase of adjacent bigrams matches exactly the original substring in the segmented index.
    return '"' + " ".join(grams) + '"'


def memtui_terms(query: str, cjk_bigram: bool = True) -> list[str]:
    terms: list[str] = []
    for token in query_tokens(query):
        if cjk_bigram and contains_cjk(token):
            terms.extend(_term(piece, cjk) for piece, cjk in _split_mixed(token))
        else:
            terms.append(f'"{token}"')
    return list(dict.fromkeys(terms))


def and_query(query: str, cjk_bigram: bool = True) -> str | None:
    terms = memtui_terms(query, cjk_bigram)
    return " AND ".join(terms) if terms else None


def _is_stop(term: str) -> bool:
    return term.strip('"').lower() in STOP_WORDS


def or_query(query: str, cjk_bigram: bool = True) -> str | None:
    """OR of the query's terms, stop words dropped unless nothing else is left."""
    terms = memtui_terms(query, cjk_bigram)
    content = [t for t in terms if not _is_stop(t)]
    chosen = content or terms
    if cjk_bigram:  # long CJK phrases rarely recur verbatim: also accept each bigram alone
        extra: list[str] = []
        for t in chosen:
            inner = t.strip('"')
            if " " in inner and contains_cjk(inner):
                extra.extend(f'"{g}"' for g in inner.split() if g.lower() not in STOP_WORDS)
        chosen = list(dict.fromkeys(chosen + extra))
    return " OR ".join(chosen) if chosen else None


def extract_keywords(query: str) -> list[str]:
    """Keywords for keyword-only mode: stop words, short ASCII words and bare numbers dropped.

    CJK segments yield each ideograph and each neighbouring pair (OpenClaw's Chinese rule, §6.6).
    """
    out: list[str] = []
    for segment in _SPLIT.split(query.lower().strip()):
        if not segment:
            continue
        if contains_cjk(segment):
            han = [ch for ch in segment if is_cjk_char(ch)]
            out.extend(han)
            out.extend(han[i] + han[i + 1] for i in range(len(han) - 1))
            latin = re.findall(r"[a-z0-9_]+", segment)
            out.extend(latin)
        else:
            out.append(segment)
    kept: list[str] = []
    for token in out:
        if token in STOP_WORDS or token.isdigit():
            continue
        if re.fullmatch(r"[a-z]+", token) and len(token) < 3:
            continue
        if token not in kept:
            kept.append(token)
    return kept


_MMR_ASCII = re.compile(r"[a-z0-9_]+")


def mmr_tokens(text: str) -> frozenset[str]:
    """OpenClaw's MMR tokeniser: ASCII word runs plus CJK unigrams and adjacent bigrams."""
    lowered = text.lower().strip()
    tokens = set(_MMR_ASCII.findall(lowered))
    if not contains_cjk_fast(lowered):
        return frozenset(tokens)
    prev = ""
    for ch in lowered:
        if is_cjk_char(ch):
            tokens.add(ch)
            if prev:
                tokens.add(prev + ch)
            prev = ch
        else:
            prev = ""
    return frozenset(tokens)


_LATIN_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
# a word's edges, as coverage_terms splits words: letters and digits are separate runs ("50ms" holds "50"),
# and a CJK character next to a Latin word is an edge (用Kafka)
_LETTER, _DIGIT = "a-z\u00c0-\u024f", "0-9"
STEM_PREFIX = 5  # a Latin term matches a word sharing its first 5 letters ("deployment" ~ "deploys"), as stemming would


def coverage_terms(query: str) -> list[str]:
    """The query's content terms for keyword coverage: its non-stop words (lowercased) and, in a CJK run,
    each adjacent pair of ideographs (a run of one: the ideograph), as the keyword leg matches them."""
    out: list[str] = []
    for token in query_tokens(query.lower()):
        for piece, cjk in _split_mixed(token):
            if cjk:
                out.extend(g for g in (cjk_bigrams(piece) if len(piece) > 1 else [piece]) if g not in STOP_WORDS)
            else:
                out.extend(w for w in _LATIN_WORD.findall(piece) if w not in STOP_WORDS)
    return list(dict.fromkeys(out))


def coverage_matcher(terms: list[str]) -> Callable[[str], float]:
    """A function giving the share of `terms` a text holds: a CJK term as a substring, a Latin word as a
    word starting with its first five letters (the index stems; this is the cheap stand-in), a shorter
    word or a number as itself. It runs over every candidate of a pool: a plain substring test rejects
    most texts before the word-boundary regex runs."""
    if not terms:
        return lambda text: 0.0
    cjk = [t for t in terms if contains_cjk(t)]
    latin = []
    for t in terms:
        if contains_cjk(t):
            continue
        key = t[:STEM_PREFIX] if len(t) >= STEM_PREFIX and not t.isdigit() else t
        run = _DIGIT if t.isdigit() else _LETTER
        tail = "" if key != t or len(t) >= STEM_PREFIX and not t.isdigit() else rf"(?![{run}])"
        latin.append((key, re.compile(rf"(?<![{run}]){re.escape(key)}{tail}")))

    def share(text: str) -> float:
        low = text.lower()
        found = sum(t in low for t in cjk)
        found += sum(1 for key, word in latin if key in low and word.search(low))
        return found / len(terms)

    return share


def term_coverage(terms: list[str], text: str) -> float:
    """Share of `terms` that `text` holds (see `coverage_matcher`)."""
    return coverage_matcher(terms)(text)
