"""The headless engine. Nothing under this package may import Textual."""
