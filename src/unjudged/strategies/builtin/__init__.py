"""The strategies for unjudged documents: one module each.

Every concrete `unjudged.strategies.base.Strategy` class defined in a module here is in the table
(`unjudged.strategies.registry.STRATEGIES`), at the place its `order` gives; nothing else needs
editing to add one.
"""
