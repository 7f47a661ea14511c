list(APPEND SUB_SOURCES helpers.cu)
