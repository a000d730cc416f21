"""The module path of ``pycocoevalcap.meteor`` (see :mod:`metricore.pycocoevalcap`)."""
