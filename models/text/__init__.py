"""Tokenisers: word vocabularies with the shared special symbols, and WordPiece for BERT."""
