"""Layer 4: one :class:`~metricore.core.spec.MetricSpec` per metric (``<name>.py`` defines
``SPEC``), read through :mod:`metricore.registry`. A spec composes a metric's core module with
its statistics (:mod:`metricore.stats`), explain texts and worked examples; it adds no rule
of its own."""
