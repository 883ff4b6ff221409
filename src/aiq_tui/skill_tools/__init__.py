"""The tools that wrap skills — ``use_skill``, ``read_skill_resource`` and the ``skill_<name>``
tools — and the function that wires every built-in tool together. This package sits above both
``tools/`` (the registry, the permission policy, the world-touching tools) and ``skills/`` (the
catalog, the executor): neither of those imports it.
"""
