"""Layer 1: image-side scores on features a caller supplies: FID, CLIP cosine / CLIP-S, and the
optional local embedders (torch). Imports only metricore.core."""
