"""Excel workbooks: offline scoring workbooks (out and back in) and the results workbook.

- ``layout``: where every value sits on an offline scoring sheet (shared by export and import)
- ``writer``, ``package``: an offline scoring workbook from plain data (openpyxl;
  not XlsxWriter, which cannot lock a workbook's structure)
- ``safety``: refuses hostile files before openpyxl parses them
- ``reader``: reads a filled workbook back into entry changes, listing every problem
- ``results``: the researchers' results workbook (XlsxWriter, streamed in constant_memory mode)
"""
