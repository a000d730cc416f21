"""The module path of ``pycocoevalcap.cider`` (see :mod:`metricore.pycocoevalcap`)."""
