/* Board support for {{.MCU.Refdes}} ({{.MCU.Target}}), scaffolded by copperhead:
 * the few GPIO calls main.c makes (board.c; replace with the vendor HAL/SDK
 * as the firmware grows). */
#ifndef BOARD_H
#define BOARD_H
{{- if .Core.Hz}}

/* The core clock once board_init returns: {{.Core.Setup}}. */
#define CPU_HZ {{.Core.Hz}}u
{{- end}}

void board_init(void);
void gpio_output(unsigned gpio);
void gpio_input_pullup(unsigned gpio);
void gpio_write(unsigned gpio, int level);
int gpio_read(unsigned gpio);
void delay_ms(unsigned ms);

#endif
