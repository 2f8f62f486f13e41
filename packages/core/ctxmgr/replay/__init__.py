"""Replaying recorded trajectories to measure context policies."""
