"""Clients for the outside services: one module per service, no Home Assistant entity code."""
