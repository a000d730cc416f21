"""Hugging Face Space for relaxed_accuracy; built from its spec by metricore_hf.space."""

from metricore_hf.space import launch, metric_app

demo = metric_app("relaxed_accuracy", __file__)

if __name__ == "__main__":
    launch(demo)
