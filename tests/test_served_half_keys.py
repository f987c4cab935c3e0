"""Half a private key is still a key: served text masks the key lines of a block that has only its END
(the BEGIN half lost, or cut off in another file) or only its BEGIN, line for line, and nothing else."""

from __future__ import annotations

import string

import pytest

from openclaw_memtui.engine.served import MASKED_LINE, mask_note, served_chunk

BEGIN, END = "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"
BODY = [(string.ascii_letters[i] + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU" + string.digits * 3)[:64] for i in range(12)]


@pytest.mark.parametrize("half", ["end only", "begin only"])
def test_the_lines_of_half_a_key_block_are_masked_and_nothing_else(half):
    block = [*BODY, END] if half == "end only" else [BEGIN, *BODY]
    # "Owner: alice" has the shape of a key header line: only the prose between stops the walk up to it
    lines = ["Owner: alice", "the rest of the deploy key:", *block, "", "after the key: rotate it monthly"]
    masked = mask_note("\n".join(lines)).split("\n")
    assert len(masked) == len(lines)  # still line for line: memory_get's line numbers name the file's lines
    assert not [line for line in BODY if any(line in m for m in masked)], "key lines served"
    assert masked[:2] == lines[:2] and masked[-2:] == lines[-2:]  # the words around it are the note's
    assert all(masked[i] == MASKED_LINE for i, line in enumerate(lines) if line in BODY)


def test_a_chunk_inside_a_block_with_only_its_end_is_masked_as_the_file_is():
    """The chunk holds neither BEGIN nor END: only the whole file shows it is key material."""
    lines = ["# Deploy", "the rest of the deploy key:", *BODY, END, "after"]
    chunks = [(1, 6, "\n".join(lines[0:6])), (7, 12, "\n".join(lines[6:12])), (13, 16, "\n".join(lines[12:16]))]
    assert len(lines) == 16
    for chunk in chunks:
        served = served_chunk(chunk, "memory", chunks)
        assert not [line for line in BODY if line in served], f"key lines served from lines {chunk[0]}-{chunk[1]}"
    assert served_chunk(chunks[0], "memory", chunks).startswith("# Deploy\nthe rest of the deploy key:")
