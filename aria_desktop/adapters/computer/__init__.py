"""Computer-use adapters: see the screen, read it, find text, click and type.

Screen capture (mss), OCR (Tesseract), window facts (X11), input (pyautogui, dry run),
grounding and geometry (pure), the safety policy (pure), thumbnails, and the controller the
core drives through ``core.ports.ComputerPort``.

Public names: ``DesktopController``, ``ComputerPolicy``, ``PolicyConfig``, ``ScaleMap``,
``find_text``, ``ThumbnailStore``.
"""
