"""The module path of ``pycocoevalcap.spice`` (see :mod:`metricore.pycocoevalcap`)."""
