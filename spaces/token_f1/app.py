"""Hugging Face Space for token_f1; built from its spec by metricore_hf.space."""

from metricore_hf.space import launch, metric_app

demo = metric_app("token_f1", __file__)

if __name__ == "__main__":
    launch(demo)
