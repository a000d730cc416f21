"""The module path of ``pycocoevalcap.tokenizer`` (see :mod:`metricore.pycocoevalcap`)."""
