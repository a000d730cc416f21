"""The module path of ``pycocoevalcap.rouge`` (see :mod:`metricore.pycocoevalcap`)."""
