"""Vectors: the index's vector matrix, one object an index holds (`index_vectors.IndexVectors`), with its
searcher (`vector.py`), the quantised matrix and its file, patches and names."""
