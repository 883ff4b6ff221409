"""Ranking and disclosure: which skills a query needs, and how much of each to show.

``tokenize`` turns text into terms, ``match`` ranks skills with an explainable keyword index,
``disclose`` maps confidence to phases (metadata → brief → full) and renders each phase.
"""
