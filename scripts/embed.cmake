# embed.cmake: cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P scripts/embed.cmake
# writes FILE.c defining const char SYMBOL[] (FILE's bytes and a NUL) and
# const size_t SYMBOL_len (the bytes without the NUL): how the exporter
# module carries its live page (src/serve/serve_page.html), so the page is
# edited as HTML and served from memory, with no file to install.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR len "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* generated from ${src} by scripts/embed.cmake at build time: edit ${src}, not this */\n"
  "#include <stddef.h>\n"
  "const char ${NAME}[] = {\n${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
