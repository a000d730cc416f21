"""The module path of ``pycocoevalcap.bleu`` (see :mod:`metricore.pycocoevalcap`)."""
