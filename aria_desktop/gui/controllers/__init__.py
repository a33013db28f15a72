"""Controllers: behaviour behind the views (commands to the Assistant, event rendering)."""
