"""The COCO caption toolkit's own API without Java: switch a code base by one import prefix.

``pycocoevalcap`` 1.2 (https://github.com/salaniz/pycocoevalcap) is imported by module path:
``pycocoevalcap.eval.COCOEvalCap``, ``pycocoevalcap.bleu.bleu.Bleu``,
``pycocoevalcap.meteor.meteor.Meteor``, ``pycocoevalcap.rouge.rouge.Rouge``,
``pycocoevalcap.cider.cider.Cider``, ``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer`` and
``pycocoevalcap.spice.spice.Spice``. This package has the same paths under
``metricore.pycocoevalcap``, with the same constructors, ``compute_score``/``tokenize``/
``evaluate`` signatures, return types and shapes, key order and printed output, computed by
metricore's scorers (the same numbers; no JVM, so creating a scorer costs nothing):

==============================================  =============================================
``metricore.pycocoevalcap.``                    computed by
==============================================  =============================================
``tokenizer.ptbtokenizer.PTBTokenizer``         :func:`metricore.text.ptb_tokenize.coco_tokenize`
``bleu.bleu.Bleu``                              :mod:`metricore.metrics.bleu` (bit-identical)
``meteor.meteor.Meteor``                        :mod:`metricore.metrics.meteor15` (the jar's numbers)
``rouge.rouge.Rouge``                           :mod:`metricore.metrics.rouge` (bit-identical)
``cider.cider.Cider``                           :func:`metricore.metrics.cider.compute_cider`
``eval.COCOEvalCap``                            :class:`metricore.metrics.coco_caption.COCOEvalCap`
``spice.spice.Spice``                           not computed: raises, saying what SPICE needs
==============================================  =============================================

What the toolkit asserts (one candidate per image, the same image ids in ``gts`` and ``res``,
lists of str) is a ``ValueError``/``TypeError`` naming the image id here. Not mirrored: the
toolkit's internal modules (``bleu_scorer``, ``cider_scorer``: ``BleuScorer``, ``CiderScorer``),
the METEOR wrapper's process handles and its ``_stat``/``_score`` helpers (``_score`` writes a
str to a binary pipe and fails on Python 3 in the toolkit itself), and the Java programs'
own lines on stderr.
"""
