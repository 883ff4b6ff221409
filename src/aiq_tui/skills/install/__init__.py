"""Skill collections from repositories: install, update, check, remove, sync — reproducibly.

The pieces, each in its own module:

* :mod:`.sources` — what a SOURCE argument names (git URL, ``owner/repo``, a GitHub
  ``tree/<ref>/<path>`` URL, a local folder or git work tree);
* :mod:`.git_fetch` — git itself, in a shallow, sparse, partial clone cached under the config
  home, with progress and bounds on size, file count and time;
* :mod:`.folder_hash` — the ``skills`` CLI's ``computedHash`` over a skill's files, byte for byte;
* :mod:`.lockfile` — ``skills-lock.json`` (the ``skills`` CLI's project lock format, read and
  written so that both tools can use one file);
* :mod:`.targets` — which folders an install writes for each agent (the harness profiles);
* :mod:`.staging` — copy, verify, then rename into place: nothing is ever half written;
* :mod:`.preflight` — what a skill may run, validate and doctor, before anything is written;
* :mod:`.changes` — what changed in a skill between two versions (description first);
* :mod:`.installer` — install / restore / update / check / remove, built from the above;
* :mod:`.agents_md` — the ``<available_skills>`` block of AGENTS.md (openskills' format);
* :mod:`.provenance` — where an installed skill came from, for trust and for ``skills list``.
"""
