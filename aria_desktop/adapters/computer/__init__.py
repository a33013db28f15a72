"""Computer-use adapters: see the screen, read it, find text, click and type.

Screen capture (``screen``, mss), OCR (``ocr``, Tesseract; also the page reader the knowledge
base gets for scanned PDFs), window facts (``windows``, X11), mouse and keyboard (``input``,
pyautogui or a dry run), text grounding (``grounding``), image work (``imaging``, Pillow), audit
thumbnails (``thumbnails``) and ``controller.DesktopController``, which the core drives through
its computer ports. The decisions about acting — policy, click consequence, geometry — are in
``core.computer`` and ``domain``, not here.
"""
