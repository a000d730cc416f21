"""Hugging Face Space for one_minus_ned; built from its spec by metricore_hf.space."""

from metricore_hf.space import launch, metric_app

demo = metric_app("one_minus_ned", __file__)

if __name__ == "__main__":
    launch(demo)
