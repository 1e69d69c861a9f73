/* GPIO driver stubs for {{.MCU.Target}}, scaffolded by copperhead. They build
 * and link so the happy path compiles against the toolchain; TODO: replace
 * each body with the part's register writes (or the vendor HAL) before
 * expecting pins to move. The shadow keeps gpio_read/gpio_write consistent
 * meanwhile. */
#include <stdint.h>

#include "board.h"

static volatile uint32_t shadow[8]; /* one bit per GPIO number, up to 256 */

void board_init(void)
{
	/* TODO: clocks, and enable the GPIO ports' clocks */
}

void gpio_output(unsigned gpio)
{
	(void)gpio; /* TODO: set the pin's mode to output */
}

void gpio_input_pullup(unsigned gpio)
{
	shadow[(gpio / 32) % 8] |= 1u << (gpio % 32); /* TODO: input with pull-up */
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		shadow[(gpio / 32) % 8] |= 1u << (gpio % 32);
	} else {
		shadow[(gpio / 32) % 8] &= ~(1u << (gpio % 32));
	}
}

int gpio_read(unsigned gpio)
{
	return (shadow[(gpio / 32) % 8] >> (gpio % 32)) & 1u;
}

void delay_ms(unsigned ms)
{
	/* TODO: calibrate for the core clock, or use SysTick */
	for (volatile uint32_t i = 0; i < ms * 1000u; i++) {
	}
}
