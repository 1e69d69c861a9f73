/* Board support for {{.MCU.Refdes}} ({{.MCU.Target}}), scaffolded by copperhead:
 * the few GPIO calls main.c makes. board.c holds stubs to fill in for the part
 * (or replace with the vendor HAL/SDK). */
#ifndef BOARD_H
#define BOARD_H

void board_init(void);
void gpio_output(unsigned gpio);
void gpio_input_pullup(unsigned gpio);
void gpio_write(unsigned gpio, int level);
int gpio_read(unsigned gpio);
void delay_ms(unsigned ms);

#endif
