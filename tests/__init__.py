"""Tests for Agent Media."""
