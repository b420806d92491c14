"""cutline: a review desk for LLM agent context compactions.

In the repository this folder only links the `core` and `app` folders in as
`cutline.core` and `cutline.app`; an installed wheel maps them there itself.
"""
